import iconv from 'iconv-lite';
import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { communicationTypeNames, endpoints, type ImportRecord } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { communicationImportColumns as col } from '@renkei/domain';
import {
  communicationImportsProjection,
  communicationsProjection,
  medicalInstitutionCrmProjection,
  type ReadModels,
} from '@renkei/read-models';
import { registerEndpoint } from '@renkei/service-kit';
import { listCommunicationLabels } from '../communications/communications.queries.ts';
import { csvField } from '../medical-institutions/medical-institutions.export.ts';

const exampleByType: Record<string, string> = {
  text: 'テキスト',
  textarea: 'テキスト',
  integer: '10',
  date: '2026-04-01',
  time: '09:30',
  own_department: '（自院診療科名）',
};

export function registerCommunicationImportQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  registerEndpoint(
    app,
    endpoints.listCommunicationImports,
    async ({ query, auth }) => {
      const db = deps.db.typed<ReadModels>();
      const [counted, page] = await Promise.all([
        db
          .selectFrom('rm.communication_imports')
          .select(sql<number>`count(*)::int`.as('n'))
          .where('tenant_id', '=', auth.tenantId)
          .executeTakeFirst(),
        db
          .selectFrom('rm.communication_imports as i')
          .leftJoin('rm.mi_accounts as a', (j) =>
            j.onRef('a.tenant_id', '=', 'i.tenant_id').onRef('a.account_id', '=', 'i.created_by'),
          )
          .select([
            'i.id',
            'i.filename',
            'i.status',
            'i.error_messages',
            'i.imported_row_count',
            'i.failed_row_count',
            'i.unprocessed_row_count',
            'i.abortion_row_number',
            'i.created_at',
            'i.created_by',
            'i.import_type',
            'a.name',
          ])
          .where('i.tenant_id', '=', auth.tenantId)
          .orderBy('i.created_at', 'desc')
          .orderBy('i.id', 'desc')
          .limit(query.per_page)
          .offset((query.page - 1) * query.per_page)
          .execute(),
      ]);
      const total = counted?.n ?? 0;
      return {
        data: page.map(({ name, created_by, created_at, ...r }): ImportRecord => ({
          ...r,
          created_at: new Date(created_at).toISOString(),
          created_by: created_by ? { id: created_by, name: name ?? '' } : null,
        })),
        meta: {
          total_count: total,
          page: query.page,
          per_page: query.per_page,
          total_pages: Math.ceil(total / query.per_page),
        },
      };
    },
    { reads: [communicationImportsProjection.name, medicalInstitutionCrmProjection.name] },
  );

  registerEndpoint(
    app,
    endpoints.communicationImportTemplate,
    async ({ query, auth, reply }) => {
      const labels = await listCommunicationLabels(deps.db.typed<ReadModels>(), auth.tenantId, undefined);
      // A header names the label of the row's type: labels of several types sharing a name share a column.
      const byName = new Map<string, (typeof labels)[number]>();
      for (const l of labels) if (!byName.has(l.name)) byName.set(l.name, l);
      const fixed: [string, string][] = [
        [col.institutionCode, '1310000001'],
        [col.institutionName, '（医療機関コードがない場合は正式名称）'],
        [col.actedDate, '2026-04-01'],
        [col.type, communicationTypeNames.visit],
        [col.user, '（メールアドレスまたは氏名。空欄はインポートした人）'],
        [col.category, ''],
        [col.purpose, ''],
        [col.story, '院長と面談し、紹介の状況を伺った'],
        [col.eventName, ''],
        [col.memo, ''],
        [col.otherMemo, ''],
        [col.personInChargeHospital, ''],
        [col.attendee, ''],
        [col.doctorAttended, 'あり'],
      ];
      const labelColumns = [...byName.values()].map((l): [string, string] => [
        l.name,
        l.component_type === 'checkbox'
          ? l.selections
              .map((s) => s.label)
              .slice(0, 2)
              .join('、')
          : l.component_type === 'select' || l.component_type === 'radio'
            ? (l.selections[0]?.label ?? '')
            : (exampleByType[l.component_type] ?? ''),
      ]);
      const rows = [[...fixed, ...labelColumns].map(([h]) => h), [...fixed, ...labelColumns].map(([, v]) => v)];
      const text = rows.map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
      const sjis = query.encoding === 'shift_jis';
      void reply
        .header('content-type', `text/csv; charset=${sjis ? 'Shift_JIS' : 'UTF-8'}`)
        .header('content-disposition', 'attachment; filename="communications_template.csv"');
      return (sjis ? iconv.encode(text, 'cp932') : Buffer.from('\ufeff' + text, 'utf8')) as unknown as string;
    },
    { reads: [communicationsProjection.name] },
  );
}
