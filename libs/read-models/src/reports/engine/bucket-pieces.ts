import type { ReportBucket } from '@renkei/contracts';

/**
 * Which rollup rows answer a bucket exactly: each whole calendar month inside it is one row of the
 * monthly rollups; what is left, each whole segment (the Monday–Sunday part of a month the period rollups
 * are keyed by) one row of those; and the days left over (a bucket clipped to a period that starts or
 * ends mid-week) a range of day rows. A week bucket is thus its one or two segments, a month its row.
 */
type PieceKind = 'month' | 'segment' | 'day';

export interface RollupPiece {
  /** 'p' for a bucket of the period, 'c' for one of the comparison period. */
  set: 'p' | 'c';
  bucket: string;
  kind: PieceKind;
  /** First and last day it covers, inclusive (a month's and a segment's first day is its row key). */
  from: string;
  to: string;
}

const day = (iso: string) => new Date(`${iso}T00:00:00Z`);
const iso = (d: Date) => d.toISOString().slice(0, 10);
const addDays = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + n));
const monthEnd = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0));
/** The Sunday of `d`'s Monday–Sunday week. */
const sunday = (d: Date) => addDays(d, (7 - d.getUTCDay()) % 7);

export function piecesOf(set: 'p' | 'c', bucket: ReportBucket): RollupPiece[] {
  const pieces: RollupPiece[] = [];
  const last = day(bucket.to);
  let cursor = day(bucket.from);
  while (cursor <= last) {
    const endOfMonth = monthEnd(cursor);
    if (cursor.getUTCDate() === 1 && endOfMonth <= last) {
      pieces.push({ set, bucket: bucket.key, kind: 'month', from: iso(cursor), to: iso(endOfMonth) });
      cursor = addDays(endOfMonth, 1);
      continue;
    }
    const segmentEnd = sunday(cursor) < endOfMonth ? sunday(cursor) : endOfMonth;
    const segmentStart = cursor.getUTCDate() === 1 || cursor.getUTCDay() === 1;
    const to = segmentEnd <= last ? segmentEnd : last;
    pieces.push({
      set,
      bucket: bucket.key,
      kind: segmentStart && segmentEnd <= last ? 'segment' : 'day',
      from: iso(cursor),
      to: iso(to),
    });
    cursor = addDays(to, 1);
  }
  return pieces;
}

/** The pieces of every bucket of a request, as the columns of an `unnest`. */
export function pieceColumns(buckets: readonly ReportBucket[], comparisonBuckets: readonly ReportBucket[]) {
  const withSlots = [
    ...buckets.map((b, i) => ({ slot: i, pieces: piecesOf('p', b) })),
    ...comparisonBuckets.map((b, i) => ({ slot: buckets.length + i, pieces: piecesOf('c', b) })),
  ];
  const pieces = withSlots.flatMap((s) => s.pieces);
  return {
    count: pieces.length,
    /** The bucket's position among the period's buckets followed by the comparison period's. */
    slots: withSlots.flatMap((s) => s.pieces.map(() => s.slot)),
    sets: pieces.map((p) => p.set),
    buckets: pieces.map((p) => p.bucket),
    kinds: pieces.map((p) => p.kind),
    froms: pieces.map((p) => p.from),
    tos: pieces.map((p) => p.to),
  };
}
