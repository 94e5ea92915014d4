import type { Reactor } from '@renkei/projections';
import { labelValueImportReactor } from './reactors/label-value-import.reactor.ts';
import { referralDataImportReactor } from './reactors/referral-data-import.reactor.ts';
import { communicationImportReactor } from './reactors/communication-import.reactor.ts';
import { referralRelinkReactor } from './reactors/referral-relink.reactor.ts';
import { referralWithdrawalReactor } from './reactors/referral-withdrawal.reactor.ts';
import { createEmailDeliveryReactor, type EmailDeliveryOptions } from './reactors/email-delivery.reactor.ts';
import { createUploadedFilesReactor } from './reactors/uploaded-files.reactor.ts';
import { createReactionDigestReactor } from './reactors/reaction-digest.reactor.ts';
import { createAlertEvaluationReactor } from './reactors/alert-evaluation.reactor.ts';
import { createReportAlertReactor } from './reactors/report-alert.reactor.ts';
import { createAlertSummaryReactor } from './reactors/alert-summary.reactor.ts';
import { createReportAlertMailReactor } from './reactors/report-alert-mail.reactor.ts';

/**
 * Every reactor the worker runs (imports, mail delivery, alert evaluation); one entry each. The
 * embedded install passes its public origin and data directory (the standalone worker reads them
 * from the environment).
 */
export function workerReactors(email: Pick<EmailDeliveryOptions, 'publicOrigin' | 'dataDir'> = {}): readonly Reactor[] {
  return [
    labelValueImportReactor,
    referralDataImportReactor,
    createEmailDeliveryReactor(email),
    communicationImportReactor,
    createUploadedFilesReactor(),
    referralRelinkReactor,
    referralWithdrawalReactor,
    createReactionDigestReactor({ ...(email.publicOrigin ? { publicOrigin: email.publicOrigin } : {}) }),
    createAlertEvaluationReactor(),
    createReportAlertReactor(),
    createAlertSummaryReactor({ ...(email.publicOrigin ? { publicOrigin: email.publicOrigin } : {}) }),
    createReportAlertMailReactor({ ...(email.publicOrigin ? { publicOrigin: email.publicOrigin } : {}) }),
  ];
}

export const reactors: readonly Reactor[] = workerReactors();
