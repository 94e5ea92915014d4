import type { Kysely } from 'kysely';
import type { RankingBody, RankingResult } from '@renkei/contracts';
import type { AnalysisPeriodUnit } from '@renkei/domain';
import type { ReadModels } from '@renkei/read-models';
import {
  analysisBuckets,
  coverage,
  institutionNames,
  seriesValues,
  sumMeasures,
  sumRollups,
} from '../charts/analysis.queries.ts';

/** Names in Japanese order; one collator, where `localeCompare(…, 'ja')` builds one per comparison. */
const byName = new Intl.Collator('ja');

interface Ranked {
  id: string;
  name: string;
  rank: number;
  score: number[];
}

/**
 * Institutions ordered by their scores (compared in order, biggest first), ranked by standard
 * competition: equal scores share a rank and the next rank skips (1, 2, 2, 4). Rows of equal scores
 * are listed by name, then id, and the list stops at `limit` rows (docs/decisions.md).
 */
async function rank(db: Kysely<ReadModels>, scores: Map<string, number[]>, limit: number): Promise<Ranked[]> {
  const compare = (a: number[], b: number[]) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return b[i]! - a[i]!;
    return 0;
  };
  const byScore = [...scores].sort(([, a], [, b]) => compare(a, b));
  // Names decide the order among equals only: fetch those down to the score of the last row shown.
  const cut = byScore[Math.min(limit, byScore.length) - 1]?.[1];
  const shown = cut ? byScore.filter(([, s]) => compare(s, cut) <= 0) : [];
  const names = await institutionNames(
    db,
    shown.map(([id]) => id),
  );
  const ordered = shown
    .map(([id, score]) => ({ id, score, name: names.get(id) ?? '' }))
    .sort((a, b) => compare(a.score, b.score) || byName.compare(a.name, b.name) || a.id.localeCompare(b.id));
  let rankOf = 0;
  return ordered.slice(0, limit).map((r, i) => {
    if (i === 0 || compare(ordered[i - 1]!.score, r.score) !== 0) rankOf = i + 1;
    return { ...r, rank: rankOf };
  });
}

/** Per-institution figures of the ranked rows per bucket, null where the data does not cover the bucket. */
async function valuesOf(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: RankingBody,
  ids: string[],
  unit: AnalysisPeriodUnit,
  measure: 'referrals' | 'reverse_referrals',
) {
  const buckets = analysisBuckets(body.period, unit);
  if (ids.length === 0) return { labels: buckets.map((b) => b.label), of: () => [] as (number | null)[] };
  const [sums, covered] = await Promise.all([
    sumRollups(
      db,
      tenantId,
      { ...body, medical_institution_ids: ids },
      body.period,
      measure,
      'institution_bucket',
      unit,
    ),
    coverage(db, tenantId, measure),
  ]);
  return {
    labels: buckets.map((b) => b.label),
    of: (id: string) =>
      seriesValues(buckets, new Map(buckets.map((b) => [b.key, sums.get(`${id}|${b.key}`) ?? 0])), covered),
  };
}

/** Referral ranking over the period: totals, and per 年度 (`fiscal_year`) or month, or none. */
export async function referralRanking(
  db: Kysely<ReadModels>,
  tenantId: string,
  body: RankingBody,
  unit: 'fiscal_year' | 'month' | null,
): Promise<RankingResult> {
  const totals = await sumMeasures(db, tenantId, body, body.period, ['referrals'], 'institution', 'month', {
    top: body.limit,
  });
  const ranked = await rank(db, totals, body.limit);
  const values = unit
    ? await valuesOf(
        db,
        tenantId,
        body,
        ranked.map((r) => r.id),
        unit,
        'referrals',
      )
    : { labels: [], of: () => [] };
  return {
    labels: values.labels,
    data: ranked.map((r) => ({
      rank: r.rank,
      medical_institution: { id: r.id, name: r.name },
      total: r.score[0]!,
      values: values.of(r.id),
    })),
  };
}

/** Institutions by referrals, then reverse referrals, with both per month of the period. */
export async function bothReferralsRanking(db: Kysely<ReadModels>, tenantId: string, body: RankingBody) {
  const range = body.period;
  // One pass for both: a ranking body has no referral-only filter.
  const scores = await sumMeasures(
    db,
    tenantId,
    body,
    range,
    ['referrals', 'reverse_referrals'],
    'institution',
    'month',
    {
      top: body.limit,
    },
  );
  const ranked = await rank(db, scores, body.limit);
  const ids = ranked.map((r) => r.id);
  const [referralValues, reverseValues] = await Promise.all([
    valuesOf(db, tenantId, body, ids, 'month', 'referrals'),
    valuesOf(db, tenantId, body, ids, 'month', 'reverse_referrals'),
  ]);
  return {
    labels: referralValues.labels,
    data: ranked.map((r) => ({
      rank: r.rank,
      medical_institution: { id: r.id, name: r.name },
      referral_total: r.score[0]!,
      reverse_referral_total: r.score[1]!,
      referral_values: referralValues.of(r.id),
      reverse_referral_values: reverseValues.of(r.id),
    })),
  };
}
