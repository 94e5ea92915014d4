import type { FastifyInstance } from 'fastify';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { HttpError, endpoints, maxUnknownDepartments, type DataUploadRecord } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { referralsProjection, unmatchedInstitutionDismissalsProjection, type ReadModels } from '@renkei/read-models';
import { referralColumns, reverseReferralColumns } from '@renkei/referral-files';
import { registerEndpoint } from '@renkei/service-kit';
import { csvField } from '../medical-institutions/medical-institutions.export.ts';

type ImportRow = Omit<
  DataUploadRecord,
  'created_at' | 'created_by' | 'unmatched_institutions' | 'unknown_department_row_count' | 'unknown_departments'
> & {
  created_at: Date;
  created_by: string | null;
  creator_name: string | null;
  unmatched_institutions: Record<string, number>;
  unknown_department_row_count: number;
  unknown_departments: Record<string, number>;
};

function toRecord({
  creator_name,
  created_by,
  created_at,
  unmatched_institutions,
  unknown_departments,
  ...row
}: ImportRow): DataUploadRecord {
  return {
    ...row,
    // The worker records a file-level failure at row 0 (the file as a whole); the contract says null.
    // A chunk's warnings come after its errors: the owner reads them in the file's order, the file first.
    error_messages: row.error_messages
      .map((e) => (e.row_number !== null && e.row_number <= 0 ? { ...e, row_number: null } : e))
      .sort((a, b) => (a.row_number ?? 0) - (b.row_number ?? 0)),
    created_at: new Date(created_at).toISOString(),
    created_by: created_by ? { id: created_by, name: creator_name ?? '' } : null,
    unmatched_institutions: Object.entries(unmatched_institutions)
      .map(([key, row_count]) => {
        const [code, ...name] = key.split('|');
        return { code: code || null, name: name.join('|') || null, row_count };
      })
      .sort((a, b) => b.row_count - a.row_count),
    unknown_departments: Object.entries(unknown_departments)
      .map(([name, row_count]) => ({ name, row_count }))
      // Ties by code point: the same order whatever the server's collation.
      .sort((a, b) => b.row_count - a.row_count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .slice(0, maxUnknownDepartments),
  };
}

const templateExample: Record<'referral' | 'reverse_referral', string[]> = {
  referral: [
    '2026/04/01',
    '0001234',
    '2210110009',
    '駿河クリニック',
    '内科',
    '山田 太郎',
    '外科',
    '佐藤 花子',
    '精査加療',
    '1',
    '',
  ],
  reverse_referral: ['2026/04/15', '0001234', '2210110009', '駿河クリニック', '外科', ''],
};

/** /data_uploads: the upload history with counts and row errors, templates, saved mappings (owners only). */
export function registerDataUploadQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const reads = { reads: [referralsProjection.name] };
  const select = (db: Kysely<ReadModels>, where: RawBuilder<unknown>) =>
    sql<ImportRow>`
    SELECT i.id, i.import_type, i.filename, i.status, i.error_messages, i.total_row_count, i.imported_row_count,
           i.failed_row_count, i.unprocessed_row_count, i.abortion_row_number, i.new_record_count,
           i.updated_record_count, i.unchanged_record_count, i.unmatched_row_count, i.unmatched_institutions,
           i.unknown_department_row_count, i.unknown_departments, i.created_at, i.created_by, a.name AS creator_name,
           i.withdrawal_requested_at IS NOT NULL AS withdrawing
      FROM rm.referral_data_imports i
      LEFT JOIN rm.mi_accounts a ON a.tenant_id = i.tenant_id AND a.account_id = i.created_by
     WHERE ${where}`.execute(db);

  registerEndpoint(
    app,
    endpoints.listDataUploads,
    async ({ query, auth }) => {
      const db = deps.db.typed<ReadModels>();
      const type = query.import_type ?? null;
      // A withdrawn upload is gone from the history once its rows are taken back; until then it says so.
      const filter = sql`i.tenant_id = ${auth.tenantId} AND i.withdrawn_at IS NULL AND (${type}::text IS NULL OR i.import_type = ${type})`;
      const [counted, page] = await Promise.all([
        sql<{ n: number }>`SELECT count(*)::int AS n FROM rm.referral_data_imports i WHERE ${filter}`.execute(db),
        select(
          db,
          sql`${filter} ORDER BY i.created_at DESC, i.id DESC LIMIT ${query.per_page} OFFSET ${(query.page - 1) * query.per_page}`,
        ),
      ]);
      const total = counted.rows[0]?.n ?? 0;
      return {
        data: page.rows.map(toRecord),
        meta: {
          total_count: total,
          page: query.page,
          per_page: query.per_page,
          total_pages: Math.ceil(total / query.per_page),
        },
      };
    },
    reads,
  );

  registerEndpoint(
    app,
    endpoints.getDataUpload,
    async ({ params, auth }) => {
      const { rows } = await select(
        deps.db.typed<ReadModels>(),
        sql`i.tenant_id = ${auth.tenantId} AND i.id = ${params.id} AND i.withdrawn_at IS NULL`,
      );
      if (!rows[0]) throw new HttpError(404);
      return toRecord(rows[0]);
    },
    reads,
  );

  registerEndpoint(app, endpoints.dataUploadTemplate, async ({ params, reply }) => {
    const header = params.import_type === 'referral' ? referralColumns : reverseReferralColumns;
    const text =
      [header, templateExample[params.import_type]].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
    void reply
      .header('content-type', 'text/csv; charset=UTF-8')
      .header('content-disposition', `attachment; filename="${params.import_type}_template.csv"`);
    return Buffer.from('\ufeff' + text, 'utf8') as unknown as string;
  });

  registerEndpoint(
    app,
    endpoints.listMappingProfiles,
    async ({ auth }) => {
      const row = await deps.db
        .typed<ReadModels>()
        .selectFrom('rm.data_upload_mapping_profiles')
        .select(['profiles', 'version'])
        .where('tenant_id', '=', auth.tenantId)
        .executeTakeFirst();
      return { profiles: row?.profiles ?? [], version: row?.version ?? -1 };
    },
    reads,
  );

  registerEndpoint(
    app,
    endpoints.listUnmatchedInstitutions,
    async ({ query, auth }) => {
      const db = deps.db.typed<ReadModels>();
      // Keyed as hand matches are ('' for a missing code or name), most rows first.
      const unmatched = sql`
        SELECT coalesce(institution_code, '') AS code, coalesce(institution_name, '') AS name,
               1 AS referral, 0 AS reverse, referral_date AS d
          FROM rm.referrals WHERE tenant_id = ${auth.tenantId} AND medical_institution_id IS NULL
        UNION ALL
        SELECT coalesce(institution_code, ''), coalesce(institution_name, ''), 0, 1, reverse_referral_date
          FROM rm.reverse_referrals WHERE tenant_id = ${auth.tenantId} AND medical_institution_id IS NULL`;
      // Set aside by an owner: listed only when asked for (to put back), never with what is left to match.
      const setAside = sql`EXISTS (SELECT 1 FROM rm.unmatched_institution_dismissals x
        WHERE x.tenant_id = ${auth.tenantId} AND x.institution_code = u.code AND x.institution_name = u.name)`;
      const listed = query.dismissed ? setAside : sql`NOT ${setAside}`;
      const [counted, page] = await Promise.all([
        sql<{
          n: number;
        }>`SELECT count(DISTINCT (code, name))::int AS n FROM (${unmatched}) u WHERE ${listed}`.execute(db),
        sql<{
          institution_code: string | null;
          institution_name: string | null;
          referral_count: number;
          reverse_referral_count: number;
          last_date: string;
        }>`
          SELECT nullif(code, '') AS institution_code, nullif(name, '') AS institution_name,
                 sum(referral)::int AS referral_count, sum(reverse)::int AS reverse_referral_count,
                 to_char(max(d), 'YYYY-MM-DD') AS last_date
            FROM (${unmatched}) u
           WHERE ${listed}
           GROUP BY code, name
           ORDER BY count(*) DESC, code, name
           LIMIT ${query.per_page} OFFSET ${(query.page - 1) * query.per_page}`.execute(db),
      ]);
      const total = counted.rows[0]?.n ?? 0;
      return {
        data: page.rows,
        meta: {
          total_count: total,
          page: query.page,
          per_page: query.per_page,
          total_pages: Math.ceil(total / query.per_page),
        },
      };
    },
    { reads: [referralsProjection.name, unmatchedInstitutionDismissalsProjection.name] },
  );
}
