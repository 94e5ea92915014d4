import type { EmailReportFilter } from '@renkei/contracts';

/**
 * The report filters as a zod-free list: the report route's search reader runs in the entry chunk,
 * and importing the contract's enum there brought zod and the email schemas onto the first page
 * (+28 KiB gzip, over the 250 KiB budget). A test keeps it equal to the contract.
 */
export const emailReportFilters: readonly EmailReportFilter[] = [
  'opened',
  'clicked',
  'bounced',
  'unsubscribed',
  'in_doubt',
];
