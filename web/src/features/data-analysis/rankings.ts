import type { RankingResult } from '@renkei/contracts';

/** One collator for the page's sorts: `localeCompare(…, 'ja')` builds one per comparison. */
const japanese = new Intl.Collator('ja');

export interface RankedInstitution {
  id: string;
  name: string;
  /** The server's rank in the period (ties share a rank); null when it did not refer in the period. */
  rank: number | null;
  total: number;
  /** Referrals in the comparison period; null when not known (beyond a truncated ranking, or no comparison). */
  previous: number | null;
  change: number | null;
}

export interface Rankings {
  top: RankedInstitution[];
  risers: RankedInstitution[];
  fallers: RankedInstitution[];
  /** Referred in the comparison period, not in the period. */
  lost: RankedInstitution[];
  /** Whether a ranking stopped at the limit, so institutions below it are not compared. */
  truncated: boolean;
}

/**
 * Joins the period's ranking with the comparison period's. A ranking shorter than the limit holds every
 * institution that referred, so an institution missing from it referred 0 times; a ranking cut at the
 * limit says nothing of the rest, and their change stays unknown rather than guessed.
 */
export function joinRankings(
  current: RankingResult,
  previous: RankingResult | null,
  limit: number,
  size = 20,
): Rankings {
  const currentComplete = current.data.length < limit;
  const previousComplete = previous !== null && previous.data.length < limit;
  const before = new Map(previous?.data.map((r) => [r.medical_institution.id, r]) ?? []);
  const now = new Map(current.data.map((r) => [r.medical_institution.id, r]));
  const rows: RankedInstitution[] = current.data.map((r) => {
    const prev = before.get(r.medical_institution.id)?.total ?? (previousComplete ? 0 : null);
    return {
      id: r.medical_institution.id,
      name: r.medical_institution.name,
      rank: r.rank,
      total: r.total,
      previous: prev,
      change: prev === null ? null : r.total - prev,
    };
  });
  const gone: RankedInstitution[] = [];
  if (previous) {
    for (const r of previous.data) {
      if (now.has(r.medical_institution.id) || !currentComplete || r.total <= 0) continue;
      gone.push({
        id: r.medical_institution.id,
        name: r.medical_institution.name,
        rank: null,
        total: 0,
        previous: r.total,
        change: -r.total,
      });
    }
  }
  const byName = (a: RankedInstitution, b: RankedInstitution) => japanese.compare(a.name, b.name);
  const all = [...rows, ...gone];
  return {
    top: rows.slice(0, size),
    risers: all
      .filter((r) => r.change !== null && r.change > 0)
      .sort((a, b) => b.change! - a.change! || byName(a, b))
      .slice(0, size),
    fallers: all
      .filter((r) => r.change !== null && r.change < 0)
      .sort((a, b) => a.change! - b.change! || byName(a, b))
      .slice(0, size),
    lost: gone.sort((a, b) => b.previous! - a.previous! || byName(a, b)).slice(0, size),
    truncated: previous !== null && (!currentComplete || !previousComplete),
  };
}
