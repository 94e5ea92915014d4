/** Where a page of rows ordered by (created_at, id) ended. */
export interface Cursor {
  created_at: string;
  id: string;
}

/**
 * One round of a month-turn loop (alert conditions, report alerts): the rows still to run this month, a
 * page at a time in (created_at, id) order after the last page's end. A row that fails is handed to
 * `failed` (the caller logs it with its ids) and tried again next round; it neither stops the round nor
 * holds back the rows after it. `run` answers whether the row counted. Stops between rows when `signal`
 * aborts. Answers how many counted.
 */
export async function roundOfPages<R extends Cursor>(options: {
  page(after: Cursor | null, limit: number): Promise<R[]>;
  run(row: R): Promise<boolean>;
  failed(row: R, error: unknown): void;
  signal?: AbortSignal | undefined;
}): Promise<number> {
  const limit = 100;
  let counted = 0;
  let after: Cursor | null = null;
  for (;;) {
    const rows = await options.page(after, limit);
    for (const row of rows) {
      if (options.signal?.aborted) return counted;
      try {
        if (await options.run(row)) counted++;
      } catch (error) {
        options.failed(row, error);
      }
    }
    const lastRow = rows.at(-1);
    if (rows.length < limit || !lastRow) return counted;
    after = { created_at: lastRow.created_at, id: lastRow.id };
  }
}
