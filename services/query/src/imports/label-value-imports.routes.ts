import iconv from 'iconv-lite';
import type { ReadModels } from '@renkei/read-models';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { endpoints, type ImportRecord } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import { listMedicalInstitutionLabels } from '../labels/labels.routes.ts';
import { csvField } from '../medical-institutions/medical-institutions.export.ts';
import { medicalInstitutionCrmProjection } from '@renkei/read-models';
import { labelValueImportsProjection } from '@renkei/read-models';

const exampleByType: Record<string, string> = {
  text: 'テキスト',
  textarea: 'テキスト',
  integer: '10',
  date: '2026-04-01',
  time: '09:30',
  own_department: '（自院診療科名）',
};

export function registerLabelValueImportQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  registerEndpoint(
    app,
    endpoints.listLabelValueImports,
    async ({ query, auth }) => {
      const db = deps.db.typed<ReadModels>();
      const [counted, page] = await Promise.all([
        sql<{
          n: number;
        }>`SELECT count(*)::int AS n FROM rm.label_value_imports WHERE tenant_id = ${auth.tenantId}`.execute(db),
        sql<
          Omit<ImportRecord, 'created_at' | 'created_by' | 'import_type'> & {
            created_at: Date;
            created_by: string | null;
            name: string | null;
          }
        >`
          SELECT i.id, i.filename, i.status, i.error_messages, i.imported_row_count, i.failed_row_count, i.unprocessed_row_count,
                 i.abortion_row_number, i.created_at, i.created_by, a.name
            FROM rm.label_value_imports i
            LEFT JOIN rm.mi_accounts a ON a.tenant_id = i.tenant_id AND a.account_id = i.created_by
           WHERE i.tenant_id = ${auth.tenantId}
           ORDER BY i.created_at DESC, i.id DESC LIMIT ${query.per_page} OFFSET ${(query.page - 1) * query.per_page}`.execute(
          db,
        ),
      ]);
      const total = counted.rows[0]?.n ?? 0;
      return {
        data: page.rows.map(({ name, created_by, created_at, ...r }) => ({
          ...r,
          created_at: new Date(created_at).toISOString(),
          created_by: created_by ? { id: created_by, name: name ?? '' } : null,
          import_type: 'medical_institution_label_value' as const,
        })),
        meta: {
          total_count: total,
          page: query.page,
          per_page: query.per_page,
          total_pages: Math.ceil(total / query.per_page),
        },
      };
    },
    { reads: [labelValueImportsProjection.name, medicalInstitutionCrmProjection.name] },
  );

  registerEndpoint(
    app,
    endpoints.labelValueImportTemplate,
    async ({ query, auth, reply }) => {
      const labels = await listMedicalInstitutionLabels(deps.db, auth.tenantId);
      const header = ['医療機関コード', '医療機関名', ...labels.map((l) => l.name)];
      const example = [
        '2210110009',
        '（確認用・取り込みません）',
        ...labels.map((l) =>
          l.component_type === 'checkbox'
            ? l.selections
                .map((s) => s.label)
                .slice(0, 2)
                .join('、')
            : l.component_type === 'select' || l.component_type === 'radio'
              ? (l.selections[0]?.label ?? '')
              : l.component_type === 'area'
                ? (l.areas[0]?.name ?? '')
                : (exampleByType[l.component_type] ?? ''),
        ),
      ];
      const text = [header, example].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
      const sjis = query.encoding === 'shift_jis';
      void reply
        .header('content-type', `text/csv; charset=${sjis ? 'Shift_JIS' : 'UTF-8'}`)
        .header('content-disposition', 'attachment; filename="medical_institution_label_values_template.csv"');
      return (sjis ? iconv.encode(text, 'cp932') : Buffer.from('\ufeff' + text, 'utf8')) as unknown as string;
    },
    { reads: [medicalInstitutionCrmProjection.name] },
  );
}
