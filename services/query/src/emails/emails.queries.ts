import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import {
  HttpError,
  type Email,
  type EmailRecipientReport,
  type EmailReportFilter,
  type EmailReportsExportQuery,
  type EmailReportsQuery,
  type EmailStats,
  type EmailStatus,
  type EmailTimeline,
} from '@renkei/contracts';
import { signFileUrl, type FileStorage } from '@renkei/file-storage';
import type { ReadModels } from '@renkei/read-models';
import { csvField, japanDateTime } from '../medical-institutions/medical-institutions.export.ts';

type EmailRow = Selectable<ReadModels['rm.emails']> & { created_by_name: string | null };

/** Where the attachments' names, sizes and signed links come from (the file storage, as communications'). */
export interface EmailFiles {
  storage: FileStorage;
  fileUrlKey: () => Buffer;
}

/** The attachment fields of the emails' rows, read from the file storage in one lookup. */
async function withAttachments(files: EmailFiles, tenantId: string, rows: EmailRow[]): Promise<Email[]> {
  const ids = [...new Set(rows.flatMap((r) => (r.attachment_id ? [r.attachment_id] : [])))];
  const found = new Map((await files.storage.find(tenantId, ids)).map((f) => [f.id, f]));
  const now = new Date();
  return rows.map((r) => {
    const file = r.attachment_id ? found.get(r.attachment_id) : undefined;
    return {
      ...toEmail(r),
      attachment_name: file?.filename ?? null,
      attachment_size: file?.size ?? null,
      attachment_url: file ? signFileUrl(files.fileUrlKey(), file, now) : null,
    };
  });
}

const toEmail = (r: EmailRow): Omit<Email, 'attachment_name' | 'attachment_size' | 'attachment_url'> => ({
  id: r.id,
  title: r.title,
  status: r.status,
  destination_count: r.destination_count,
  invalid_destination_count: r.invalid_destination_count,
  invalid_destinations: r.invalid_destinations,
  sender_name: r.sender_name,
  sender_email: r.sender_email,
  main_content: r.main_content,
  attachment_id: r.attachment_id,
  doctor_ids: r.doctor_ids,
  sent_at: r.sent_at ? r.sent_at.toISOString() : null,
  created_by: r.created_by ? { id: r.created_by, name: r.created_by_name ?? '' } : null,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
  version: r.version,
  delivery_stopped:
    r.parked_reason && r.parked_at
      ? { reason: r.parked_reason, error: r.parked_error ?? '', stopped_at: r.parked_at.toISOString() }
      : null,
});

interface Page<T> {
  data: T[];
  meta: { total_count: number; page: number; per_page: number; total_pages: number };
}

const page = <T>(data: T[], total: number, query: { page: number; per_page: number }): Page<T> => ({
  data,
  meta: {
    total_count: total,
    page: query.page,
    per_page: query.per_page,
    total_pages: Math.ceil(total / query.per_page),
  },
});

function emails(db: Kysely<ReadModels>, tenantId: string) {
  return db
    .selectFrom('rm.emails as e')
    .leftJoin('rm.mi_accounts as a', (j) =>
      j.onRef('a.tenant_id', '=', 'e.tenant_id').onRef('a.account_id', '=', 'e.created_by'),
    )
    .selectAll('e')
    .select('a.name as created_by_name')
    .where('e.tenant_id', '=', tenantId);
}

/** Unsent ones newest first by creation; sent ones newest first by sending. */
export async function listEmails(
  db: Kysely<ReadModels>,
  files: EmailFiles,
  tenantId: string,
  query: { page: number; per_page: number; status?: EmailStatus | undefined },
): Promise<Page<Email>> {
  let q = emails(db, tenantId);
  if (query.status) q = q.where('e.status', '=', query.status);
  const [rows, counted] = await Promise.all([
    q
      .orderBy(sql`coalesce(e.sent_at, e.created_at)`, 'desc')
      .orderBy('e.id', 'desc')
      .limit(query.per_page)
      .offset((query.page - 1) * query.per_page)
      .execute(),
    db
      .selectFrom('rm.emails')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('tenant_id', '=', tenantId)
      .$if(query.status !== undefined, (w) => w.where('status', '=', query.status!))
      .executeTakeFirstOrThrow(),
  ]);
  return page(await withAttachments(files, tenantId, rows), Number(counted.n), query);
}

export async function getEmail(
  db: Kysely<ReadModels>,
  files: EmailFiles,
  tenantId: string,
  id: string,
): Promise<Email> {
  const row = await emails(db, tenantId).where('e.id', '=', id).executeTakeFirst();
  if (!row) throw new HttpError(404);
  const [email] = await withAttachments(files, tenantId, [row]);
  return email!;
}

const rate = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 1000) / 1000);

/**
 * Delivered over destinations; opened and clicked over delivered (a mail not delivered cannot be
 * read). A rate with nothing to divide by is null, never 0: an unsent draft has mailed no destination
 * yet, so it has no delivered rate, as it has no opened rate. Test sends are never in these figures.
 */
export async function getEmailStats(db: Kysely<ReadModels>, tenantId: string, id: string): Promise<EmailStats> {
  const email = await db
    .selectFrom('rm.emails')
    .select(['destination_count', 'invalid_destination_count', 'sent_at'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!email) throw new HttpError(404);
  const counts = await db
    .selectFrom('rm.email_recipients')
    .select((eb) => [
      // Delivered: accepted by the SMTP server, and no bounce came back.
      sql<string>`count(*) FILTER (WHERE delivered_at IS NOT NULL AND bounced_at IS NULL)`.as('delivered'),
      eb.fn.count<string>('opened_at').as('opened'),
      eb.fn.count<string>('clicked_at').as('clicked'),
      eb.fn.count<string>('in_doubt_at').as('in_doubt'),
    ])
    .where('tenant_id', '=', tenantId)
    .where('email_id', '=', id)
    .executeTakeFirstOrThrow();
  const delivered = Number(counts.delivered);
  const opened = Number(counts.opened);
  const clicked = Number(counts.clicked);
  return {
    destination_count: email.destination_count,
    invalid_destination_count: email.invalid_destination_count,
    delivered_count: delivered,
    opened_count: opened,
    clicked_count: clicked,
    delivered_rate: rate(delivered, email.sent_at === null ? 0 : email.destination_count),
    opened_rate: rate(opened, delivered),
    clicked_rate: rate(clicked, delivered),
    in_doubt_count: Number(counts.in_doubt),
  };
}

type ReportRow = {
  id: string;
  sort_order: number;
  email_address: string;
  name: string | null;
  medical_institution_id: string | null;
  medical_institution_name: string | null;
  delivered: boolean;
  opened_at: Date | null;
  clicked_at: Date | null;
  bounced: boolean;
  bounce_status: string | null;
  bounce_reason: string | null;
  unsubscribed: boolean;
  in_doubt: boolean;
};

const filterSql: Record<EmailReportFilter, RawBuilder<unknown>> = {
  opened: sql`r.opened_at IS NOT NULL`,
  clicked: sql`r.clicked_at IS NOT NULL`,
  bounced: sql`r.bounced_at IS NOT NULL`,
  unsubscribed: sql`(r.unsubscribed_at IS NOT NULL OR r.skipped_reason IS NOT DISTINCT FROM 'unsubscribed')`,
  in_doubt: sql`r.in_doubt_at IS NOT NULL`,
};

/** The campaign's recipients in the draft's order from `after` on; 404 for no campaign of the tenant. */
async function reportRows(
  db: Kysely<ReadModels>,
  tenantId: string,
  id: string,
  where: { filter?: EmailReportFilter | undefined; afterOrder?: number; limit: number; offset?: number },
): Promise<ReportRow[]> {
  const { rows } = await sql<ReportRow>`
    SELECT r.id, r.sort_order, r.email_address, r.name, r.medical_institution_id, m.name AS medical_institution_name,
           (r.delivered_at IS NOT NULL AND r.bounced_at IS NULL) AS delivered, r.opened_at, r.clicked_at,
           r.bounced_at IS NOT NULL AS bounced, r.bounce_status, r.bounce_reason,
           (r.unsubscribed_at IS NOT NULL OR r.skipped_reason IS NOT DISTINCT FROM 'unsubscribed') AS unsubscribed,
           r.in_doubt_at IS NOT NULL AS in_doubt
      FROM rm.email_recipients r
      LEFT JOIN ref.medical_institutions m ON m.id = r.medical_institution_id
     WHERE r.tenant_id = ${tenantId} AND r.email_id = ${id}
       AND ${where.filter ? filterSql[where.filter] : sql`true`}
       AND r.sort_order > ${where.afterOrder ?? -1}
     ORDER BY r.sort_order
     LIMIT ${where.limit} OFFSET ${where.offset ?? 0}`.execute(db);
  return rows;
}

const toReport = (r: ReportRow): EmailRecipientReport => ({
  id: r.id,
  email_address: r.email_address,
  name: r.name,
  medical_institution:
    r.medical_institution_id && r.medical_institution_name
      ? { id: r.medical_institution_id, name: r.medical_institution_name }
      : null,
  delivered: r.delivered,
  opened: r.opened_at !== null,
  clicked: r.clicked_at !== null,
  bounced: r.bounced,
  bounce_reason: r.bounced ? [r.bounce_status, r.bounce_reason].filter(Boolean).join(' ') || null : null,
  unsubscribed: r.unsubscribed,
  opened_at: r.opened_at ? r.opened_at.toISOString() : null,
  clicked_at: r.clicked_at ? r.clicked_at.toISOString() : null,
  delivery_in_doubt: r.in_doubt,
});

async function assertEmail(db: Kysely<ReadModels>, tenantId: string, id: string) {
  const email = await db
    .selectFrom('rm.emails')
    .select(['destination_count', 'sent_at', 'title'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!email) throw new HttpError(404);
  return email;
}

export async function listEmailReports(
  db: Kysely<ReadModels>,
  tenantId: string,
  id: string,
  query: EmailReportsQuery,
): Promise<Page<EmailRecipientReport>> {
  const email = await assertEmail(db, tenantId, id);
  const [rows, total] = await Promise.all([
    reportRows(db, tenantId, id, {
      filter: query.filter,
      limit: query.per_page,
      offset: (query.page - 1) * query.per_page,
    }),
    query.filter
      ? sql<{ n: number }>`
          SELECT count(*)::int AS n FROM rm.email_recipients r
           WHERE r.tenant_id = ${tenantId} AND r.email_id = ${id} AND ${filterSql[query.filter]}`
          .execute(db)
          .then((r) => r.rows[0]!.n)
      : Promise.resolve(email.destination_count),
  ]);
  return page(rows.map(toReport), total, query);
}

const yesNo = (b: boolean) => (b ? '○' : '');

/** Every recipient of the report's filter as CSV, in the report's order, a batch at a time. */
export function exportEmailReports(
  db: Kysely<ReadModels>,
  tenantId: string,
  id: string,
  query: EmailReportsExportQuery,
): Promise<Readable> {
  const encode = (text: string) =>
    query.encoding === 'shift_jis' ? iconv.encode(text, 'cp932') : Buffer.from(text, 'utf8');
  const line = (cells: string[]) => cells.map(csvField).join(',') + '\r\n';
  const header = [
    'メールアドレス',
    '氏名',
    '医療機関',
    '配信',
    '開封',
    'クリック',
    '不達',
    '不達理由',
    '配信停止',
    '開封日時',
    'クリック日時',
    '配信結果不明',
  ];
  // The 404 is answered before the first byte: the email is checked first.
  return assertEmail(db, tenantId, id).then(() => {
    async function* generate(): AsyncGenerator<Buffer> {
      yield encode((query.encoding === 'shift_jis' ? '' : '\ufeff') + line(header));
      let after = -1;
      for (;;) {
        const rows = await reportRows(db, tenantId, id, { filter: query.filter, afterOrder: after, limit: 1000 });
        if (rows.length === 0) return;
        after = rows.at(-1)!.sort_order;
        yield encode(
          rows
            .map((r) => {
              const report = toReport(r);
              return line([
                r.email_address,
                r.name ?? '',
                r.medical_institution_name ?? '',
                yesNo(report.delivered),
                yesNo(report.opened),
                yesNo(report.clicked),
                yesNo(report.bounced),
                report.bounce_reason ?? '',
                yesNo(report.unsubscribed),
                japanDateTime(r.opened_at),
                japanDateTime(r.clicked_at),
                yesNo(report.delivery_in_doubt),
              ]);
            })
            .join(''),
        );
      }
    }
    return Readable.from(generate());
  });
}

const hourMs = 3600_000;
const dayMs = 24 * hourMs;

/**
 * First opens and first clicks of the campaign's recipients over time, every bucket from the send to
 * the last hit (empty ones too, so the chart's gaps are true): hours while that spans at most three
 * days, else Japanese days.
 */
export async function getEmailTimeline(db: Kysely<ReadModels>, tenantId: string, id: string): Promise<EmailTimeline> {
  const email = await assertEmail(db, tenantId, id);
  if (!email.sent_at) return { sent_at: null, data: [] };
  const { rows } = await sql<{ hour: Date; opened: number; clicked: number }>`
    SELECT date_trunc('hour', h.at) AS hour, sum(h.o)::int AS opened, sum(h.c)::int AS clicked
      FROM (SELECT opened_at AS at, 1 AS o, 0 AS c FROM rm.email_recipients
             WHERE tenant_id = ${tenantId} AND email_id = ${id} AND opened_at IS NOT NULL
            UNION ALL
            SELECT clicked_at, 0, 1 FROM rm.email_recipients
             WHERE tenant_id = ${tenantId} AND email_id = ${id} AND clicked_at IS NOT NULL) h
     GROUP BY 1 ORDER BY 1`.execute(db);
  const sent = email.sent_at.getTime();
  const last = Math.max(sent, ...rows.map((r) => r.hour.getTime()));
  const unit: 'hour' | 'day' = last - sent <= 3 * dayMs ? 'hour' : 'day';
  // Japan has no daylight saving time: a Japanese day is 24 hours from 15:00 UTC.
  const bucketOf = (t: number) =>
    unit === 'hour' ? Math.floor(t / hourMs) * hourMs : Math.floor((t + 9 * hourMs) / dayMs) * dayMs - 9 * hourMs;
  const step = unit === 'hour' ? hourMs : dayMs;
  const counts = new Map<number, { opened: number; clicked: number }>();
  for (const r of rows) {
    const b = bucketOf(r.hour.getTime());
    const c = counts.get(b) ?? { opened: 0, clicked: 0 };
    c.opened += r.opened;
    c.clicked += r.clicked;
    counts.set(b, c);
  }
  const data: EmailTimeline['data'] = [];
  let openedTotal = 0;
  let clickedTotal = 0;
  for (let b = bucketOf(sent); b <= bucketOf(last); b += step) {
    const c = counts.get(b) ?? { opened: 0, clicked: 0 };
    openedTotal += c.opened;
    clickedTotal += c.clicked;
    data.push({
      at: new Date(b).toISOString(),
      unit,
      opened_count: c.opened,
      clicked_count: c.clicked,
      opened_total: openedTotal,
      clicked_total: clickedTotal,
    });
  }
  return { sent_at: email.sent_at.toISOString(), data };
}
