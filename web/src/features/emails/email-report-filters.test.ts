import { describe, expect, it } from 'vitest';
import { EmailReportFilter } from '@renkei/contracts';
import { emailReportFilters } from './email-report-filters.ts';

describe('email report filters', () => {
  it('are the contract enum, in its order', () => {
    expect(emailReportFilters).toEqual(EmailReportFilter.options);
  });
});
