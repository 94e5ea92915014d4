import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { labelValueImportsProjection, medicalInstitutionCrmProjection, type ReadModels } from '@renkei/read-models';
import { registerEndpoint } from '@renkei/service-kit';
import { listMedicalInstitutionLabels } from '../labels/labels.routes.ts';
import { importRecordsPage, labelExample, templateCsv } from './import-records.ts';

export function registerLabelValueImportQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  registerEndpoint(
    app,
    endpoints.listLabelValueImports,
    ({ query, auth }) =>
      importRecordsPage(deps.db.typed<ReadModels>(), {
        table: 'rm.label_value_imports',
        importType: sql.lit('medical_institution_label_value'),
        tenantId: auth.tenantId,
        query,
      }),
    { reads: [labelValueImportsProjection.name, medicalInstitutionCrmProjection.name] },
  );

  registerEndpoint(
    app,
    endpoints.labelValueImportTemplate,
    async ({ query, auth, reply }) => {
      const labels = await listMedicalInstitutionLabels(deps.db, auth.tenantId);
      return templateCsv(reply, {
        header: ['医療機関コード', '医療機関名', ...labels.map((l) => l.name)],
        example: ['2210110009', '（確認用・取り込みません）', ...labels.map(labelExample)],
        encoding: query.encoding,
        filename: 'medical_institution_label_values_template.csv',
      });
    },
    { reads: [medicalInstitutionCrmProjection.name] },
  );
}
