import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { HttpError, endpoints, reportKinds, type ReportDefinitionInput, type ReportKind } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  aggregateReport,
  reportDefinitionsProjection,
  reportSources,
  ReportValidationError,
  runReport,
  type ReadModels,
} from '@renkei/read-models';
import { registerEndpoint } from '@renkei/service-kit';
import { getReportDefinition } from './report-definitions.queries.ts';

/** The result endpoints of each kind; aggregation results exist for institutions and communications only. */
const kindEndpoints = {
  area_reports: {
    items: endpoints.areaReportsItemDefinitions,
    results: endpoints.areaReportsResults,
    aggregation: null,
  },
  communication_reports: {
    items: endpoints.communicationReportsItemDefinitions,
    results: endpoints.communicationReportsResults,
    aggregation: endpoints.communicationReportsAggregationResults,
  },
  medical_institution_reports: {
    items: endpoints.medicalInstitutionReportsItemDefinitions,
    results: endpoints.medicalInstitutionReportsResults,
    aggregation: endpoints.medicalInstitutionReportsAggregationResults,
  },
  own_department_reports: {
    items: endpoints.ownDepartmentReportsItemDefinitions,
    results: endpoints.ownDepartmentReportsResults,
    aggregation: null,
  },
} satisfies Record<ReportKind, unknown>;

/**
 * The definition a run names: a saved one of this tenant and kind (404 otherwise), or the unsaved one
 * of the body. A saved one may name labels deleted since; an unsaved one may not.
 */
async function definitionOf(
  db: Kysely<ReadModels>,
  tenantId: string,
  kind: ReportKind,
  body: { definition_id?: string | undefined; definition?: ReportDefinitionInput | undefined },
): Promise<{ definition: ReportDefinitionInput; saved: boolean }> {
  if (body.definition) return { definition: body.definition, saved: false };
  const saved = await getReportDefinition(db, tenantId, kind, body.definition_id!);
  if (!saved) throw new HttpError(404);
  return {
    definition: {
      name: saved.name,
      display_items: saved.display_items,
      filter_conditions: saved.filter_conditions,
      sort_conditions: saved.sort_conditions,
      aggregation_settings: saved.aggregation_settings,
    },
    saved: true,
  };
}

/** A definition that cannot run, or a period a source refuses, is the client's to fix: a 422. */
async function asClientErrors<T>(run: () => Promise<T>, saved: boolean): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ReportValidationError)
      throw new HttpError(422, undefined, {
        // A saved definition's fields are not in the body: name them under `definition` all the same.
        errors: error.errors.map((e) => ({
          field: saved || e.field.startsWith('grouping_item_keys') ? e.field : `definition.${e.field}`,
          message: e.message,
        })),
      });
    if (error instanceof Error && error.name === 'TooManyCommunicationsError')
      throw new HttpError(422, undefined, {
        errors: [{ field: 'definition.aggregation_settings.period', message: error.message }],
      });
    throw error;
  }
}

/** Spec §7 reports: item catalogs, results and aggregations of every kind that has a source. */
export function registerReportResultQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = () => deps.db.typed<ReadModels>();
  for (const kind of reportKinds) {
    const source = reportSources[kind];
    if (!source) continue;
    const e = kindEndpoints[kind];
    // A saved definition is read from the definitions read model, the rows from the source's.
    const reads = { reads: [...source.reads, reportDefinitionsProjection.name] };

    registerEndpoint(app, e.items, ({ auth }) => source.items(db(), auth.tenantId), { reads: [...source.reads] });

    registerEndpoint(
      app,
      e.results,
      async ({ body, auth }) => {
        const { definition, saved } = await definitionOf(db(), auth.tenantId, kind, body);
        return asClientErrors(
          () => runReport(source, db(), auth.tenantId, definition, { page: body.page, perPage: body.per_page, saved }),
          saved,
        );
      },
      reads,
    );

    if (e.aggregation)
      registerEndpoint(
        app,
        e.aggregation,
        async ({ body, auth }) => {
          const { definition, saved } = await definitionOf(db(), auth.tenantId, kind, body);
          return asClientErrors(
            () => aggregateReport(source, db(), auth.tenantId, definition, body.grouping_item_keys, { saved }),
            saved,
          );
        },
        reads,
      );
  }
}
