import { describe, it } from 'vitest';
import { notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { dataUploadWithdrawalDecider } from './data-upload-withdrawal.decider.ts';

const importId = '00000000-0000-4000-8000-000000000009';
const requested = {
  type: 'ReferralDataImportWithdrawalRequested' as const,
  data: { import_id: importId, import_type: 'referral' as const },
};

describe('data upload withdrawal', () => {
  it('withdraws an upload of the tenant once', () => {
    given(dataUploadWithdrawalDecider)
      .when({ importId, upload: { importType: 'referral', finished: true } })
      .then([requested]);
  });

  it('finds nothing to withdraw a second time, or for an upload the tenant does not have', () => {
    given(dataUploadWithdrawalDecider, [requested])
      .when({ importId, upload: { importType: 'referral', finished: true } })
      .thenRejected(notFound());
    given(dataUploadWithdrawalDecider).when({ importId, upload: null }).thenRejected(notFound());
  });
});
