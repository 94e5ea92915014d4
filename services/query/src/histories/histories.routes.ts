import { sql } from 'kysely';
import type { FastifyInstance } from 'fastify';
import { endpoints, type MedicalInstitutionHistory } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { registerEndpoint } from '@renkei/service-kit';
import { medicalInstitutionCrmProjection } from '@renkei/read-models';
import { assertInstitution } from '../medical-institutions/medical-institutions.routes.ts';

type StoredChange = MedicalInstitutionHistory['changes'][number] & {
  added_tag_ids?: string[];
  removed_tag_ids?: string[];
};

/** GET /medical_institutions/{id}/histories: this tenant's changes, newest first, from the events. */
export function registerHistoryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  registerEndpoint(
    app,
    endpoints.getHistories,
    async ({ params, query, auth }) => {
      await assertInstitution(deps.db, params.id);
      const db = deps.db.kysely;
      const [counted, page] = await Promise.all([
        sql<{ n: number }>`SELECT count(*)::int AS n FROM rm.mi_histories
          WHERE tenant_id = ${auth.tenantId} AND medical_institution_id = ${params.id}`.execute(db),
        sql<{
          id: string;
          kind: MedicalInstitutionHistory['kind'];
          occurred_at: Date;
          account_id: string | null;
          name: string | null;
          summary: string;
          changes: StoredChange[];
        }>`
          SELECT h.id, h.kind, h.occurred_at, h.account_id, a.name, h.summary, h.changes
            FROM rm.mi_histories h
            LEFT JOIN rm.mi_accounts a ON a.tenant_id = h.tenant_id AND a.account_id = h.account_id
           WHERE h.tenant_id = ${auth.tenantId} AND h.medical_institution_id = ${params.id}
           ORDER BY h.position_primary DESC, h.position_secondary DESC
           LIMIT ${query.per_page} OFFSET ${(query.page - 1) * query.per_page}`.execute(db),
      ]);
      const tagIds = [
        ...new Set(
          page.rows.flatMap((r) =>
            r.changes.flatMap((c) => [...(c.added_tag_ids ?? []), ...(c.removed_tag_ids ?? [])]),
          ),
        ),
      ];
      const tagNames = new Map<string, string>();
      if (tagIds.length > 0) {
        const { rows } = await sql<{ id: string; name: string }>`
          SELECT id, name FROM rm.tags WHERE tenant_id = ${auth.tenantId} AND id = ANY(${sql.val(tagIds)}::uuid[])`.execute(
          db,
        );
        for (const r of rows) tagNames.set(r.id, r.name);
      }
      const names = (ids: string[] | undefined) =>
        ids?.length ? ids.map((id) => tagNames.get(id) ?? '（削除されたタグ）').join('、') : null;
      const total = counted.rows[0]?.n ?? 0;
      return {
        data: page.rows.map((r) => ({
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
