import { parseReferralDataWithdrawalEvent, type ReferralDataImportType } from '@renkei/domain';
import { notFound, type Decider } from '../shared/decider.ts';

export type ReferralDataWithdrawalEvent = ReturnType<typeof parseReferralDataWithdrawalEvent>;

/** What the route read of the import's own stream: its type and whether the worker has finished it. */
export interface UploadFacts {
  importType: ReferralDataImportType;
  finished: boolean;
}

export interface WithdrawDataUpload {
  importId: string;
  /** Null: no such import in the caller's tenant. */
  upload: UploadFacts | null;
}

/**
 * An owner withdraws an upload once: its record says so until the worker has taken its rows back in
 * slices, then leaves the history. A second withdrawal finds nothing to do (404): one is under way or done.
 * Whether the upload may be withdrawn at all (finished, a withdrawable type) is the route's 409.
 */
export const dataUploadWithdrawalDecider: Decider<
  { requested: boolean },
  WithdrawDataUpload,
  ReferralDataWithdrawalEvent
> = {
  initialState: () => ({ requested: false }),
  evolve: (state, event) => (event.type === 'ReferralDataImportWithdrawalRequested' ? { requested: true } : state),
  decide: (state, command) => {
    if (state.requested || command.upload === null) return notFound();
    return [
      {
        type: 'ReferralDataImportWithdrawalRequested',
        data: { import_id: command.importId, import_type: command.upload.importType },
      },
    ];
  },
  parse: parseReferralDataWithdrawalEvent,
};
