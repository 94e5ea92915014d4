import { sql, type Kysely, type Selectable } from 'kysely';
import { HttpError, type Email, type EmailRecipientReport, type EmailStats, type EmailStatus } from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';

type EmailRow = Selectable<ReadModels['rm.emails']> & { created_by_name: string | null };

const toEmail = (r: EmailRow): Email => ({
  id: r.id,
  title: r.title,
  status: r.status,
  destination_count: r.destination_count,
  invalid_destination_count: r.invalid_destination_count,
  sender_name: r.sender_name,
  sender_email: r.sender_email,
  main_content: r.main_content,
  attachment_id: r.attachment_id,
  // Attachments (POST /uploaded_files) are not built yet.
  attachment_name: null,
  doctor_ids: r.doctor_ids,
  sent_at: r.sent_at ? r.sent_at.toISOString() : null,
  created_by: r.created_by ? { id: r.created_by, name: r.created_by_name ?? '' } : null,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
  version: r.version,
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
  return page(rows.map(toEmail), Number(counted.n), query);
}

export async function getEmail(db: Kysely<ReadModels>, tenantId: string, id: string): Promise<Email> {
  const row = await emails(db, tenantId).where('e.id', '=', id).executeTakeFirst();
  if (!row) throw new HttpError(404);
  return toEmail(row);
}

const rate = (n: number, of: number) => (of === 0 ? null : Math.round((n / of) * 1000) / 1000);

/**
 * Delivered over destinations; opened and clicked over delivered (a mail not delivered cannot be
 * read). Test sends are never in these figures.
 */
export async function getEmailStats(db: Kysely<ReadModels>, tenantId: string, id: string): Promise<EmailStats> {
  const email = await db
    .selectFrom('rm.emails')
    .select(['destination_count', 'invalid_destination_count'])
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!email) throw new HttpError(404);
  const counts = await db
    .selectFrom('rm.email_recipients')
    .select((eb) => [
      eb.fn.count<string>('delivered_at').as('delivered'),
      eb.fn.count<string>('opened_at').as('opened'),
      eb.fn.count<string>('clicked_at').as('clicked'),
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
    delivered_rate: rate(delivered, email.destination_count),
    opened_rate: rate(opened, delivered),
    clicked_rate: rate(clicked, delivered),
  };
}

export async function listEmailReports(
  db: Kysely<ReadModels>,
  tenantId: string,
  id: string,
  query: { page: number; per_page: number },
): Promise<Page<EmailRecipientReport>> {
  const email = await db
    .selectFrom('rm.emails')
    .select('destination_count')
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!email) throw new HttpError(404);
  const { rows } = await sql<{
    id: string;
    email_address: string;
    name: string | null;
    medical_institution_id: string | null;
    medical_institution_name: string | null;
    delivered: boolean;
    opened: boolean;
    clicked: boolean;
  }>`
    SELECT r.id, r.email_address, r.name, r.medical_institution_id, m.name AS medical_institution_name,
           r.delivered_at IS NOT NULL AS delivered, r.opened_at IS NOT NULL AS opened, r.clicked_at IS NOT NULL AS clicked
      FROM rm.email_recipients r
      LEFT JOIN ref.medical_institutions m ON m.id = r.medical_institution_id
     WHERE r.tenant_id = ${tenantId} AND r.email_id = ${id}
     ORDER BY r.sort_order
     LIMIT ${query.per_page} OFFSET ${(query.page - 1) * query.per_page}`.execute(db);
  return page(
    rows.map((r) => ({
      id: r.id,
      email_address: r.email_address,
      name: r.name,
      medical_institution:
        r.medical_institution_id && r.medical_institution_name
          ? { id: r.medical_institution_id, name: r.medical_institution_name }
          : null,
      delivered: r.delivered,
      opened: r.opened,
      clicked: r.clicked,
    })),
    email.destination_count,
    query,
  );
}

/** The campaign each of these communications was recorded for (the communication's `email`). */
export async function emailsOfCommunications(
  db: Kysely<ReadModels>,
  tenantId: string,
  communicationIds: string[],
): Promise<Map<string, { id: string; title: string }>> {
  if (communicationIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('rm.email_communications as ec')
    .innerJoin('rm.emails as e', (j) => j.onRef('e.tenant_id', '=', 'ec.tenant_id').onRef('e.id', '=', 'ec.email_id'))
    .select(['ec.communication_id', 'e.id', 'e.title'])
    .where('ec.tenant_id', '=', tenantId)
    .where('ec.communication_id', 'in', communicationIds)
    .execute();
  return new Map(rows.map((r) => [r.communication_id, { id: r.id, title: r.title }]));
}
