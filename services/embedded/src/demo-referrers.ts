import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import { fiscalYearOf } from '@renkei/domain';
import { demoReferrers, type DemoReferrer } from '@renkei/referral-files';

/** A day in Japan, `days` from today: the demo's 年度 and its files' last day follow Japan's calendar. */
export function dayInJapan(days = 0, now = new Date()): string {
  return new Date(now.getTime() + 9 * 3_600_000 + days * 86_400_000).toISOString().slice(0, 10);
}

/** The referral generator's seed: the referrers and their files follow from it. */
export const demoReferralSeed = 1;

/**
 * The demo hospital, the institutions its files name and the 年度 they cover. The hospital is the largest
 * open hospital of the generated master: its prefecture completes the 7-digit codes of the 逆紹介 list,
 * and it never refers to itself. Referrers are open 医科 institutions of the demo region (the generator
 * gives them sizes and trends).
 */
export async function demoReferralSources(db: Database) {
  const own = (
    await sql<{ id: string; code: string }>`
      SELECT id, code FROM ref.medical_institutions WHERE running_status = 'open' AND substr(code, 3, 1) = '1'
       ORDER BY bed_count DESC NULLS LAST, code LIMIT 1`.execute(db.kysely)
  ).rows[0];
  if (!own) return undefined;
  const { rows: institutions } = await sql<{ id: string; code: string; name: string }>`
    SELECT id, code, name FROM ref.medical_institutions
     WHERE running_status = 'open' AND substr(code, 3, 1) = '1' AND id <> ${own.id}
     ORDER BY code LIMIT 400`.execute(db.kysely);
  const fy = fiscalYearOf(dayInJapan());
  return { own, institutions, fiscalYears: [fy - 2, fy - 1, fy] };
}

/**
 * The institutions that refer to the demo hospital, largest first, as its referral files will show them:
 * the demo's visits go to them in proportion (the liaison staff visit those who refer), and stop months
 * before one of them stops referring.
 */
export async function demoReferrersOf(db: Database): Promise<(DemoReferrer & { id: string })[]> {
  const sources = await demoReferralSources(db);
  if (!sources) return [];
  const idByCode = new Map(sources.institutions.map((i) => [i.code, i.id]));
  return demoReferrers({
    seed: demoReferralSeed,
    institutions: sources.institutions,
    ownInstitutionCode: sources.own.code,
    fiscalYears: sources.fiscalYears,
  }).map((r) => ({ ...r, id: idByCode.get(r.code)! }));
}
