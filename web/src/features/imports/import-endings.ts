import type { ImportRecord } from '@renkei/contracts';
import { isRunning } from './imports.queries.ts';

type Seen = Pick<ImportRecord, 'id' | 'status' | 'created_at'>;

/**
 * Follows an import history across its polls and answers, for each new answer, whether an import ended
 * since the previous one: seen waiting or processing before and over now. An import newer than any seen
 * before that is already over also counts: a small file can be done before the first poll after its upload
 * (the history then never shows it running). The first answer is what was there already and ends nothing.
 * An import counts once: the polls that show it over again end nothing.
 */
export function importEndings(): (rows: readonly Seen[]) => boolean {
  const statuses = new Map<string, Seen['status']>();
  let newest: number | null = null;
  let first = true;
  return (rows) => {
    let ended = false;
    // Rows are "newer" against the answers before this one, not against each other.
    let newestNow = newest;
    for (const row of rows) {
      const before = statuses.get(row.id);
      // Compared with one another only: the server's clock stamps every row.
      const created = Date.parse(row.created_at);
      const appearedOver = before === undefined && !first && (newest === null || created > newest);
      if (!isRunning(row) && (appearedOver || (before !== undefined && isRunning({ status: before })))) ended = true;
      statuses.set(row.id, row.status);
      if (newestNow === null || created > newestNow) newestNow = created;
    }
    newest = newestNow;
    first = false;
    return ended;
  };
}
