import { z } from 'zod';

/** A query-string array: one value decodes as a string, several as an array. */
export const queryArray = <T extends z.ZodType>(item: T) =>
  z.preprocess((v) => (v === undefined ? undefined : Array.isArray(v) ? v : [v]), z.array(item));

export const queryInt = (opts: { min?: number; max?: number } = {}) => {
  let n = z.coerce.number().int();
  if (opts.min !== undefined) n = n.min(opts.min);
  if (opts.max !== undefined) n = n.max(opts.max);
  return n;
};

export const queryBoolean = z.preprocess(
  (v) => (v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v),
  z.boolean(),
);

export const Id = z.string().uuid();
export const IdParams = z.object({ id: Id });

export const SortDirection = z.enum(['asc', 'desc']);

/** Paging of every list (spec leaves sizes open; decided in docs/decisions.md). */
export const PageQuery = z.object({
  page: queryInt({ min: 1 }).default(1),
  per_page: queryInt({ min: 1, max: 100 }).default(20),
});

export const Meta = z.object({
  total_count: z.number().int(),
  page: z.number().int(),
  per_page: z.number().int(),
  total_pages: z.number().int(),
});
export const paged = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), meta: Meta });

export const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, '日付はYYYY-MM-DD形式で入力してください');
export const IsoDateTime = z.string().datetime({ offset: true });

/**
 * Dates a user enters (business dates: activities, referrals, deadlines, filters) lie within these
 * bounds. Anything outside is a typo, and Postgres cannot even store year 0000.
 */
export const businessDateRange = { from: '1900-01-01', to: '2100-12-31' } as const;

/** A date in a request: a real calendar date `YYYY-MM-DD` (`formatMessage` otherwise) in `businessDateRange`. */
export const inputDate = (formatMessage: string) =>
  z.iso
    .date({ error: formatMessage })
    .refine((v) => !/^\d{4}-/.test(v) || (v >= businessDateRange.from && v <= businessDateRange.to), {
      message: '日付は1900年1月1日から2100年12月31日の間で入力してください',
    });

export const Empty = z.object({}).strict();
export const NoContent = z.null();
