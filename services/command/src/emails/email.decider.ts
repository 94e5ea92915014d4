import {
  emailAddressKey,
  parseEmailEvent,
  type EmailDraftSaved,
  type EmailEvent,
  type EmailRecipient,
  type InvalidEmailRecipient,
} from '@renkei/domain';
import { maxEmailAttachmentBytes, type FieldError } from '@renkei/contracts';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';

export interface EmailState {
  status: 'absent' | 'draft' | 'sent' | 'deleted';
  draft: EmailDraftSaved | null;
  sentAt: string | null;
}

const initialEmailState: EmailState = { status: 'absent', draft: null, sentAt: null };

/** A row of the recipients file as read (row: 1-based line of the file, the header being row 1). */
export interface RecipientFileRow {
  row: number;
  email: string;
  name: string | null;
  institutionCode: string | null;
}

/** A doctor named in `doctor_ids`, as its own stream has it (null: no such doctor of the tenant). */
export interface DoctorFact {
  name: string;
  email: string | null;
  medicalInstitutionId: string;
}

/** The owner key under which a campaign's attachment is kept in the file storage (a file has one owner). */
export const emailAttachmentOwner = (emailId: string) => `email:${emailId}`;

/** The uploaded file an email names, as the file storage has it. */
export interface AttachmentFact {
  /** Who references it (`email:<id>`, `communication:<id>`, …); null while nothing does. */
  owner: string | null;
  size: number;
}

/** What the editor sends, with the facts the route looked up. */
export interface EmailDraftInput {
  title: string;
  senderName: string;
  senderEmail: string;
  /** Already sanitised. */
  mainContent: string;
  attachmentId: string | null;
  /** The file `attachmentId` names, of the caller's tenant; null: none (or no attachment). */
  attachment: AttachmentFact | null;
  doctorIds: string[];
  doctors: ReadonlyMap<string, DoctorFact | null>;
  /** The rows of a recipients file sent with the request; null: no file (an update keeps the previous one's). */
  fileRows: RecipientFileRow[] | null;
  /** False when the tenant restricts senders and this address is not one of its allowed ones. */
  senderAllowed: boolean;
}

export type EmailCommand =
  | { type: 'CreateEmail'; emailId: string; input: EmailDraftInput }
  | { type: 'UpdateEmail'; emailId: string; input: EmailDraftInput }
  /** `attachmentId`: the copy's own copy of the source's file (null: none). */
  | { type: 'CopyEmail'; emailId: string; source: EmailDraftSaved | null; attachmentId: string | null }
  | { type: 'DeleteEmail'; emailId: string }
  | { type: 'SendEmail'; emailId: string }
  | { type: 'SendEmailForTest'; emailId: string; testId: string; emailAddresses: string[] };

function evolve(state: EmailState, event: EmailEvent): EmailState {
  switch (event.type) {
    case 'EmailCreated':
    case 'EmailUpdated':
      return { ...state, status: 'draft', draft: event.data };
    case 'EmailDeleted':
      return { ...state, status: 'deleted' };
    case 'EmailSent':
      return { ...state, status: 'sent', sentAt: event.data.sent_at };
    case 'EmailTestSent':
      return state;
    default: {
      const never: never = event;
      return never;
    }
  }
}

// The HTML form's rule (WHATWG "valid e-mail address"), with a dot required in the domain: an address
// a mail server on the internet can route.
const addressPattern =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

const isDeliverableAddress = (address: string): boolean => address.length <= 254 && addressPattern.test(address);

const maxRecipients = 10_000;
const field = (name: string) => `stringified.${name}`;

/**
 * The campaign's recipients: the chosen doctors' addresses first, then the file's rows (or, on an
 * update without a file, the recipients that came from the previous file); one per address whatever
 * its case; a file row without a valid address is counted invalid with its row number.
 */
function recipientsOf(
  input: EmailDraftInput,
  previous: EmailDraftSaved | null,
): { recipients: EmailRecipient[]; invalid: InvalidEmailRecipient[]; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  const recipients: EmailRecipient[] = [];
  const add = (r: EmailRecipient) => {
    const key = emailAddressKey(r.email_address);
    if (seen.has(key)) return;
    seen.add(key);
    recipients.push(r);
  };
  input.doctorIds.forEach((id, i) => {
    const doctor = input.doctors.get(id);
    if (!doctor) {
      errors.push({ field: field(`doctor_ids.${i}`), message: '選択された医師が見つかりません' });
      return;
    }
    if (!doctor.email || !isDeliverableAddress(doctor.email.trim())) {
      errors.push({ field: field(`doctor_ids.${i}`), message: `${doctor.name}のメールアドレスが登録されていません` });
      return;
    }
    add({
      email_address: doctor.email.trim(),
      name: doctor.name,
      institution_code: null,
      doctor_id: id,
      medical_institution_id: doctor.medicalInstitutionId,
    });
  });
  const invalidRows: InvalidEmailRecipient[] = [];
  if (input.fileRows) {
    for (const row of input.fileRows) {
      const address = row.email.trim();
      if (!isDeliverableAddress(address)) {
        invalidRows.push({ row: row.row, value: address });
        continue;
      }
      add({
        email_address: address,
        name: row.name,
        institution_code: row.institutionCode,
        doctor_id: null,
        medical_institution_id: null,
      });
    }
  } else if (previous) {
    for (const r of previous.recipients) if (r.doctor_id === null) add(r);
    invalidRows.push(...previous.invalid_recipients);
  }
  if (recipients.length > maxRecipients)
    errors.push({ field: 'recipients_file', message: `送信先は${maxRecipients}件までです` });
  return { recipients, invalid: invalidRows, errors };
}

const attachmentLimitMb = maxEmailAttachmentBytes / 1024 / 1024;

/**
 * The attachment goes to every recipient: a file of this tenant that no other record holds (a file
 * belongs to one record, else one's edit or delete would take it from the other), small enough for
 * the receiving mail servers.
 */
function attachmentErrors(emailId: string, input: EmailDraftInput): FieldError[] {
  if (!input.attachmentId) return [];
  const file = input.attachment;
  const at = field('attachment_id');
  if (!file) return [{ field: at, message: '添付ファイルが見つかりません。ファイルを選び直してください' }];
  if (file.owner !== null && file.owner !== emailAttachmentOwner(emailId))
    return [{ field: at, message: 'このファイルは他の記録に添付されています。ファイルを選び直してください' }];
  if (file.size > maxEmailAttachmentBytes)
    return [
      {
        field: at,
        message: `添付ファイルが大きすぎます（上限 ${attachmentLimitMb} MB）。すべての送信先に届くため、小さくするかファイルへのリンクを本文に入れてください`,
      },
    ];
  return [];
}

function draftOf(
  emailId: string,
  input: EmailDraftInput,
  previous: EmailDraftSaved | null,
): EmailDraftSaved | FieldError[] {
  const errors: FieldError[] = attachmentErrors(emailId, input);
  if (!input.senderAllowed)
    errors.push({
      field: field('sender_email'),
      message: '差出人メールアドレスは許可されたアドレスから選択してください',
    });
  const { recipients, invalid: invalidRows, errors: recipientErrors } = recipientsOf(input, previous);
  errors.push(...recipientErrors);
  if (errors.length) return errors;
  return {
    email_id: emailId,
    title: input.title,
    sender_name: input.senderName,
    sender_email: input.senderEmail,
    main_content: input.mainContent,
    attachment_id: input.attachmentId,
    doctor_ids: input.doctorIds,
    recipients,
    invalid_recipients: invalidRows,
  };
}

function decide(state: EmailState, command: EmailCommand, now: Date): Decision<EmailEvent> {
  switch (command.type) {
    case 'CreateEmail': {
      if (state.status !== 'absent') return invalid({ field: 'id', message: 'このメールは既に登録されています' });
      const draft = draftOf(command.emailId, command.input, null);
      return Array.isArray(draft) ? invalid(...draft) : [{ type: 'EmailCreated', data: draft }];
    }
    case 'UpdateEmail': {
      if (state.status === 'absent' || state.status === 'deleted') return notFound();
      if (state.status === 'sent') return invalid({ field: 'id', message: '送信済みのメールは編集できません' });
      const draft = draftOf(command.emailId, command.input, state.draft);
      if (Array.isArray(draft)) return invalid(...draft);
      // Saving the same values again is not a change: no event, no new version.
      if (JSON.stringify(draft) === JSON.stringify(state.draft)) return [];
      return [{ type: 'EmailUpdated', data: draft }];
    }
    case 'CopyEmail':
      if (state.status !== 'absent') return invalid({ field: 'id', message: 'このメールは既に登録されています' });
      if (!command.source) return notFound();
      return [
        {
          type: 'EmailCreated',
          data: { ...command.source, email_id: command.emailId, attachment_id: command.attachmentId },
        },
      ];
    case 'DeleteEmail':
      if (state.status === 'absent' || state.status === 'deleted') return notFound();
      if (state.status === 'sent') return invalid({ field: 'id', message: '送信済みのメールは削除できません' });
      return [{ type: 'EmailDeleted', data: { email_id: command.emailId } }];
    case 'SendEmail':
      if (state.status === 'absent' || state.status === 'deleted') return notFound();
      // Sent already: the campaign goes out once, a second send changes nothing.
      if (state.status === 'sent') return [];
      if (!state.draft || state.draft.recipients.length === 0)
        return invalid({
          field: 'recipients',
          message: '送信先がありません。医師を選ぶか送信先ファイルを追加してください',
        });
      return [{ type: 'EmailSent', data: { email_id: command.emailId, sent_at: now.toISOString() } }];
    case 'SendEmailForTest': {
      if (state.status === 'absent' || state.status === 'deleted') return notFound();
      const errors = command.emailAddresses.flatMap((a, i) =>
        isDeliverableAddress(a)
          ? []
          : [{ field: `email_addresses.${i}`, message: 'メールアドレスの形式が正しくありません' }],
      );
      if (errors.length) return invalid(...errors);
      return [
        {
          type: 'EmailTestSent',
          data: { email_id: command.emailId, test_id: command.testId, email_addresses: command.emailAddresses },
        },
      ];
    }
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const emailDecider: Decider<EmailState, EmailCommand, EmailEvent> = {
  initialState: () => initialEmailState,
  evolve,
  decide,
  parse: parseEmailEvent,
};
