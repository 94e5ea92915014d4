import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { communicationTypeNames, endpoints, type ImportType } from '@renkei/contracts';
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
import { importRecordsPage, labelExample, templateCsv } from './import-records.ts';

export function registerCommunicationImportQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  registerEndpoint(
    app,
    endpoints.listCommunicationImports,
    ({ query, auth }) =>
      importRecordsPage(deps.db.typed<ReadModels>(), {
        table: 'rm.communication_imports',
        importType: sql.ref<ImportType>('i.import_type'),
        tenantId: auth.tenantId,
        query,
      }),
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
      // The example row is a visit: only the visit's labels have a value there (another type's would be refused).
      const visitLabels = new Map(labels.filter((l) => l.communication_type === 'visit').map((l) => [l.name, l]));
      const columns = [
        ...fixed,
        ...[...byName.keys()].map((name): [string, string] => {
          const visit = visitLabels.get(name);
          return [name, visit ? labelExample(visit) : ''];
        }),
      ];
      return templateCsv(reply, {
        header: columns.map(([h]) => h),
        example: columns.map(([, v]) => v),
        encoding: query.encoding,
        filename: 'communications_template.csv',
      });
    },
    { reads: [communicationsProjection.name] },
  );
}
