import { afterEach, describe, expect, it } from 'vitest';
import { hasFileRecipients, recalledRecipientsFileName, rememberRecipientsFileName } from './recipients-file.ts';

afterEach(() => localStorage.clear());

describe('recipients file of a saved draft', () => {
  it('is known from the counts: more recipients than chosen doctors, or rows refused as addresses', () => {
    expect(hasFileRecipients({ destination_count: 2, invalid_destination_count: 0, doctor_ids: ['a', 'b'] })).toBe(
      false,
    );
    expect(hasFileRecipients({ destination_count: 3, invalid_destination_count: 0, doctor_ids: ['a', 'b'] })).toBe(
      true,
    );
    expect(hasFileRecipients({ destination_count: 0, invalid_destination_count: 1, doctor_ids: [] })).toBe(true);
  });

  it('is named by this browser, per email', () => {
    rememberRecipientsFileName('e1', '紹介元リスト.csv');
    expect(recalledRecipientsFileName('e1')).toBe('紹介元リスト.csv');
    expect(recalledRecipientsFileName('e2')).toBeNull();
  });
});
