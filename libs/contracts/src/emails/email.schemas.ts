import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id, IdParams, IsoDateTime, NoContent, PageQuery, paged } from '../core/zod-helpers.ts';
import { CsvEncoding, MedicalInstitutionRef, UserRef } from '../core/refs.ts';

/**
 * The largest file a campaign may attach: 3 MiB. It goes to every recipient, base64 makes it a third
 * larger (about 4 MB in the mail), and many Japanese corporate and hospital mail servers refuse mails
 * over 5 or 10 MB.
 */
export const maxEmailAttachmentBytes = 3 * 1024 * 1024;

/** Spec §4 list filter. */
export const EmailStatus = z.enum(['sent', 'unsent']);
export type EmailStatus = z.infer<typeof EmailStatus>;

/** A row of a recipients file that names no valid address, as written. */
export const InvalidDestination = z.object({ row_number: z.number().int(), value: z.string() });
export type InvalidDestination = z.infer<typeof InvalidDestination>;

/** How many invalid rows an email names (its count says how many there are in all). */
export const maxListedInvalidDestinations = 100;

export const Email = z.object({
  id: Id,
  title: z.string(),
  status: EmailStatus,
  destination_count: z.number().int(),
  invalid_destination_count: z.number().int(),
  /**
   * Renkei addition: the recipients file's rows without a valid address (the first 100, by row as a
   * spreadsheet numbers it, the header being row 1), so the editor can say which to fix.
   */
  invalid_destinations: z.array(InvalidDestination),
  sender_name: z.string(),
  sender_email: z.string(),
  main_content: z.string(),
  attachment_id: Id.nullable(),
  /** The uploaded file's name (null: no attachment, or its file is gone). */
  attachment_name: z.string().nullable(),
  /** Renkei addition: the attachment's size in bytes, so the editor can show it. */
  attachment_size: z.number().int().nullable(),
  /** Renkei addition: the attachment's signed link (`/files/…`, valid 30 minutes), for a download link. */
  attachment_url: z.string().nullable(),
  /** Renkei addition (spec §3 lists no such field): the chosen doctors, so the editor can show them again. */
  doctor_ids: z.array(Id),
  sent_at: IsoDateTime.nullable(),
  created_by: UserRef.nullable(),
  created_at: IsoDateTime,
  updated_at: IsoDateTime,
  version: z.number().int(),
  /**
   * Renkei addition: the worker stopped the campaign's send and it waits for a person
   * (docs/decisions.md, "Parked email sends"). `attachment_missing`: nobody was mailed;
   * `delivery_failed`: the mail server kept refusing, the recipients done keep their mail. `error` is
   * the technical cause, for support. Null while nothing is stopped; `POST /emails/{id}/resume_send`
   * tries again.
   */
  delivery_stopped: z
    .object({
      reason: z.enum(['attachment_missing', 'delivery_failed']),
      error: z.string(),
      stopped_at: IsoDateTime,
    })
    .nullable(),
});
export type Email = z.infer<typeof Email>;

/** The JSON part (`stringified`) of the multipart create and update. */
export const EmailInput = z.object({
  title: z.string().trim().min(1, '件名を入力してください').max(200, '件名は200文字以内で入力してください'),
  sender_name: z
    .string()
    .trim()
    .min(1, '差出人名を入力してください')
    .max(100, '差出人名は100文字以内で入力してください'),
  /** With `email_sender_restricted`, one of the tenant's allowed addresses. */
  sender_email: z.email('差出人メールアドレスの形式が正しくありません'),
  main_content: z.string().min(1, '本文を入力してください').max(100000, '本文は100000文字以内で入力してください'),
  /** Doctors to send to, besides the addresses of the recipients file. */
  doctor_ids: z.array(Id).max(10000).default([]),
  /**
   * A file uploaded first through POST /uploaded_files, sent with every mail of the campaign: of the
   * caller's tenant, attached to no other record, at most `maxEmailAttachmentBytes`.
   */
  attachment_id: Id.nullable().default(null),
});
export type EmailInput = z.infer<typeof EmailInput>;

/**
 * Non-file parts of the multipart create and update (spec §3): `stringified` carries EmailInput as
 * JSON; the optional file part `recipients_file` is a CSV of addresses.
 */
export const EmailMultipartFields = z.object({
  stringified: z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'メールの内容を読み取れませんでした' });
        return z.NEVER;
      }
    })
    .pipe(EmailInput),
});
export type EmailMultipartFields = z.infer<typeof EmailMultipartFields>;

export const EmailListQuery = PageQuery.extend({ status: EmailStatus.optional() });

export const EmailRecipientReport = z.object({
  id: Id,
  email_address: z.string(),
  name: z.string().nullable(),
  medical_institution: MedicalInstitutionRef.nullable(),
  /** Accepted by the SMTP server and no bounce came back. */
  delivered: z.boolean(),
  opened: z.boolean(),
  clicked: z.boolean(),
  /** Renkei additions (spec §3 lists the three above): what the report's filters and CSV show. */
  bounced: z.boolean(),
  /** The bounce's status and text (DSN Status and Diagnostic-Code), when one came back. */
  bounce_reason: z.string().nullable(),
  /** Unsubscribed through this mail, or skipped because the address had unsubscribed before. */
  unsubscribed: z.boolean(),
  opened_at: IsoDateTime.nullable(),
  clicked_at: IsoDateTime.nullable(),
  /**
   * Renkei addition: the delivery stopped (a crash) with this mail under way and its outcome unknown;
   * it was mailed again, so it may have arrived twice (with `delivered`), or is waiting to be.
   */
  delivery_in_doubt: z.boolean(),
});
export type EmailRecipientReport = z.infer<typeof EmailRecipientReport>;

/**
 * The report's filter (a Renkei addition): recipients that opened, clicked, bounced or unsubscribed,
 * or whose delivery is in doubt after a crash.
 */
export const EmailReportFilter = z.enum(['opened', 'clicked', 'bounced', 'unsubscribed', 'in_doubt']);
export type EmailReportFilter = z.infer<typeof EmailReportFilter>;

export const EmailReportsQuery = z.object({ ...PageQuery.shape, filter: EmailReportFilter.optional() });
export type EmailReportsQuery = z.infer<typeof EmailReportsQuery>;

export const EmailReportsExportQuery = z.object({
  filter: EmailReportFilter.optional(),
  encoding: CsvEncoding.default('utf-8'),
});
export type EmailReportsExportQuery = z.infer<typeof EmailReportsExportQuery>;

/**
 * Opens and clicks over time (a Renkei addition): first opens and first clicks per recipient, every
 * bucket from the send to the last hit, by hour while that spans three days at most, else by Japanese
 * day, as counts and running totals.
 */
export const EmailTimeline = z.object({
  sent_at: IsoDateTime.nullable(),
  data: z.array(
    z.object({
      at: IsoDateTime,
      unit: z.enum(['hour', 'day']),
      opened_count: z.number().int(),
      clicked_count: z.number().int(),
      opened_total: z.number().int(),
      clicked_total: z.number().int(),
    }),
  ),
});
export type EmailTimeline = z.infer<typeof EmailTimeline>;

export const EmailStats = z.object({
  destination_count: z.number().int(),
  invalid_destination_count: z.number().int(),
  delivered_count: z.number().int(),
  opened_count: z.number().int(),
  clicked_count: z.number().int(),
  /**
   * 0–1, to three decimals: delivered over destinations, opened and clicked over delivered. Null when
   * there is nothing to divide by (not sent yet, no destinations, nothing delivered), never 0.
   */
  delivered_rate: z.number().nullable(),
  opened_rate: z.number().nullable(),
  clicked_rate: z.number().nullable(),
  /** Renkei addition: recipients whose delivery is in doubt after a crash (`delivery_in_doubt`). */
  in_doubt_count: z.number().int(),
});
export type EmailStats = z.infer<typeof EmailStats>;

export const SendForTestInput = z.object({
  email_addresses: z
    .array(z.email('メールアドレスの形式が正しくありません'))
    .min(1, '送信先を入力してください')
    .max(5, 'テスト送信は5件までです'),
});

const served = { area: 'emails', feature: 'emails', served: true } as const;

export const emailEndpoints = {
  listEmails: endpoint({
    ...served,
    id: 'emails.list',
    method: 'GET',
    path: '/emails',
    service: 'query',
    summary: 'メール一覧',
    query: EmailListQuery,
    response: paged(Email),
    successStatus: 200,
  }),
  createEmail: endpoint({
    ...served,
    id: 'emails.create',
    method: 'POST',
    path: '/emails',
    service: 'command',
    summary: 'メール作成',
    body: EmailMultipartFields,
    response: Email,
    successStatus: 201,
    multipart: true,
  }),
  getEmail: endpoint({
    ...served,
    id: 'emails.get',
    method: 'GET',
    path: '/emails/{id}',
    service: 'query',
    summary: 'メール詳細',
    params: IdParams,
    response: Email,
    successStatus: 200,
  }),
  updateEmail: endpoint({
    ...served,
    id: 'emails.update',
    method: 'PUT',
    path: '/emails/{id}',
    service: 'command',
    summary: 'メール更新（未送信のみ）',
    params: IdParams,
    body: EmailMultipartFields,
    response: Email,
    successStatus: 200,
    multipart: true,
  }),
  deleteEmail: endpoint({
    ...served,
    id: 'emails.delete',
    method: 'DELETE',
    path: '/emails/{id}',
    service: 'command',
    summary: 'メール削除',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
  }),
  listEmailReports: endpoint({
    ...served,
    id: 'emails.listReports',
    method: 'GET',
    path: '/emails/{id}/reports',
    service: 'query',
    summary: '送信先ごとの配信結果（filter は独自追加）',
    params: IdParams,
    query: EmailReportsQuery,
    response: paged(EmailRecipientReport),
    successStatus: 200,
  }),
  exportEmailReports: endpoint({
    ...served,
    id: 'emails.exportReports',
    method: 'GET',
    path: '/emails/{id}/reports/export',
    service: 'query',
    summary: '送信先ごとの配信結果のCSV出力（独自追加）',
    params: IdParams,
    query: EmailReportsExportQuery,
    response: z.string(),
    successStatus: 200,
    download: true,
  }),
  getEmailTimeline: endpoint({
    ...served,
    id: 'emails.timeline',
    method: 'GET',
    path: '/emails/{id}/timeline',
    service: 'query',
    summary: '開封・クリックの推移（独自追加）',
    params: IdParams,
    response: EmailTimeline,
    successStatus: 200,
  }),
  getEmailStats: endpoint({
    ...served,
    id: 'emails.stats',
    method: 'GET',
    path: '/emails/{id}/stats',
    service: 'query',
    summary: '配信結果の集計',
    params: IdParams,
    response: EmailStats,
    successStatus: 200,
  }),
  copyEmail: endpoint({
    ...served,
    id: 'emails.copy',
    method: 'POST',
    path: '/emails/{id}/copy',
    service: 'command',
    summary: 'メールの複製（未送信として作成）',
    params: IdParams,
    response: Email,
    successStatus: 201,
  }),
  sendEmail: endpoint({
    ...served,
    id: 'emails.send',
    method: 'POST',
    path: '/emails/{id}/send',
    service: 'command',
    summary: 'メール送信（送信は非同期）',
    params: IdParams,
    response: Email,
    successStatus: 202,
  }),
  /** Addition: a stopped (parked) send back in the queue; the recipients done are not mailed again. */
  resumeEmailSend: endpoint({
    ...served,
    id: 'emails.resumeSend',
    method: 'POST',
    path: '/emails/{id}/resume_send',
    service: 'command',
    summary: '止まった送信の再開（独自追加）',
    params: IdParams,
    response: Email,
    successStatus: 202,
  }),
  sendEmailForTest: endpoint({
    ...served,
    id: 'emails.sendForTest',
    method: 'POST',
    path: '/emails/{id}/send_for_test',
    service: 'command',
    summary: 'テスト送信',
    params: IdParams,
    body: SendForTestInput,
    response: z.object({ count: z.number().int() }),
    successStatus: 202,
  }),
};
