import type { SalesMapMedicalInstitution } from '@renkei/contracts';

type Rgba = [number, number, number, number];

/** Visited in the period: blue; not visited: red; no visit period asked (null count): grey. */
export const visitedColor: Rgba = [34, 139, 230, 220];
export const notVisitedColor: Rgba = [250, 82, 82, 220];
const unknownColor: Rgba = [134, 142, 150, 200];

export function pinColor(row: Pick<SalesMapMedicalInstitution, 'visit_count'>): Rgba {
  if (row.visit_count === null) return unknownColor;
  return row.visit_count > 0 ? visitedColor : notVisitedColor;
}

/** Pixels; by area (square root) so a referrer of 100 is not drawn 100 times as wide as one of 1. */
export function pinRadius(referralCount: number | null): number {
  return Math.min(30, 4 + 2 * Math.sqrt(Math.max(0, referralCount ?? 0)));
}

export function pinTooltip(row: SalesMapMedicalInstitution): string {
  return [
    row.name,
    row.address,
    `紹介数: ${row.referral_count ?? 0}件`,
    `期間内の訪問: ${row.visit_count ?? '—'}${row.visit_count === null ? '' : '回'}`,
    `最終訪問日: ${row.last_visit_date?.replaceAll('-', '/') ?? 'なし'}`,
  ].join('\n');
}
