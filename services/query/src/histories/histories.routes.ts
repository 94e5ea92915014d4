import { sql } from 'kysely';
import type { ReadModels } from '@renkei/read-models';
import type { FastifyInstance } from 'fastify';
import { endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import { medicalInstitutionCrmProjection } from '@renkei/read-models';
import { assertInstitution } from '../medical-institutions/medical-institutions.routes.ts';

/** GET /medical_institutions/{id}/histories: this tenant's changes, newest first, from the events. */
export function registerHistoryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  registerEndpoint(
    app,
    endpoints.getHistories,
    async ({ params, query, auth }) => {
      await assertInstitution(deps.db, params.id);
      const db = deps.db.typed<ReadModels>();
      const [counted, page] = await Promise.all([
        db
          .selectFrom('rm.mi_histories')
          .select(sql<number>`count(*)::int`.as('n'))
          .where('tenant_id', '=', auth.tenantId)
          .where('medical_institution_id', '=', params.id)
          .executeTakeFirst(),
        db
          .selectFrom('rm.mi_histories as h')
          .leftJoin('rm.mi_accounts as a', (join) =>
            join.onRef('a.tenant_id', '=', 'h.tenant_id').onRef('a.account_id', '=', 'h.account_id'),
          )
          .select(['h.id', 'h.kind', 'h.occurred_at', 'h.account_id', 'a.name', 'h.summary', 'h.changes'])
          .where('h.tenant_id', '=', auth.tenantId)
          .where('h.medical_institution_id', '=', params.id)
          .orderBy('h.position_primary', 'desc')
          .orderBy('h.position_secondary', 'desc')
          .limit(query.per_page)
          .offset((query.page - 1) * query.per_page)
          .execute(),
      ]);
      const tagIds = [
        ...new Set(
          page.flatMap((r) => r.changes.flatMap((c) => [...(c.added_tag_ids ?? []), ...(c.removed_tag_ids ?? [])])),
        ),
      ];
      const tagNames = new Map<string, string>();
      if (tagIds.length > 0) {
        const rows = await db
          .selectFrom('rm.tags')
          .select(['id', 'name'])
          .where('tenant_id', '=', auth.tenantId)
          .where('id', '=', sql<string>`ANY(${sql.val(tagIds)}::uuid[])`)
          .execute();
        for (const r of rows) tagNames.set(r.id, r.name);
      }
      const names = (ids: string[] | undefined) =>
        ids?.length ? ids.map((id) => tagNames.get(id) ?? '（削除されたタグ）').join('、') : null;
      const total = counted?.n ?? 0;
      return {
        data: page.map((r) => ({
          id: r.id,
          kind: r.kind,
          occurred_at: new Date(r.occurred_at).toISOString(),
          user: r.account_id ? { id: r.account_id, name: r.name ?? '' } : null,
          summary: r.summary,
          changes: r.changes.map(({ added_tag_ids, removed_tag_ids, ...c }) =>
            added_tag_ids || removed_tag_ids
              ? { ...c, before: names(removed_tag_ids), after: names(added_tag_ids) }
              : c,
          ),
        })),
        meta: {
          total_count: total,
          page: query.page,
          per_page: query.per_page,
          total_pages: Math.ceil(total / query.per_page),
        },
      };
    },
    { reads: [medicalInstitutionCrmProjection.name] },
  );
}
