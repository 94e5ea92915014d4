import { sql } from 'kysely';
import { HttpError } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { medicalInstitutionLabelAggregate } from '@renkei/domain';
import { readStreamOrEmpty, streamId, type AppendResult, type EventStore } from '@renkei/event-store';
import { fold } from '../shared/decider.ts';
import { labelDecider, normalizeLabelName, type LabelState } from './label.decider.ts';

const kind = 'medical_institution';

/** A reservation whose label never came to exist is taken over after this (its request died). */
const STALE_RESERVATION_MS = 60_000;

const duplicateName = () =>
  new HttpError(422, undefined, { errors: [{ field: 'name', message: 'このラベル名は既に登録されています' }] });

/** A label as its own stream says (empty for another tenant's or an unknown id). */
export async function loadLabel(store: EventStore, tenantId: string, labelId: string) {
  const events = await readStreamOrEmpty(store, streamId(medicalInstitutionLabelAggregate, labelId), tenantId);
  return { state: fold(labelDecider, events.map(labelDecider.parse)), events };
}

/**
 * Label names, unique per tenant and kind (`cmd.label_names`, compared after NFKC and trimming), and
 * the tenant's live labels with their display order: the command side's own record, never the query
 * side's. A name is reserved before the label's event is appended and released when the append
 * fails; a rename or delete frees the old name after its event is stored. A reservation a crash left
 * behind is taken over once its label does not hold the name (deleted, renamed, or never created
 * after 60 s). See docs/decisions.md.
 */
export function createLabelNames(db: Database, store: EventStore) {
  const kysely = db.kysely;

  async function reserve(tenantId: string, name: string, labelId: string): Promise<boolean> {
    for (let attempt = 0; attempt < 2; attempt++) {
      // A new label goes last; a renamed one keeps its place.
      const { rows } = await sql<{ label_id: string; reserved_at: Date; inserted: boolean }>`
        INSERT INTO cmd.label_names (tenant_id, kind, normalized_name, label_id, sort_order)
        VALUES (${tenantId}, ${kind}, ${name}, ${labelId}, coalesce(
          (SELECT sort_order FROM cmd.label_names WHERE tenant_id = ${tenantId} AND kind = ${kind} AND label_id = ${labelId} LIMIT 1),
          (SELECT max(sort_order) + 1 FROM cmd.label_names WHERE tenant_id = ${tenantId} AND kind = ${kind}),
          0))
        ON CONFLICT (tenant_id, kind, normalized_name) DO UPDATE SET label_id = cmd.label_names.label_id
        RETURNING label_id, reserved_at, (xmax = 0) AS inserted`.execute(kysely);
      const holder = rows[0]!;
      if (holder.label_id === labelId) return holder.inserted;
      if (attempt > 0 || !(await holderIsGone(tenantId, name, holder.label_id, new Date(holder.reserved_at))))
        throw duplicateName();
      await release(tenantId, name, holder.label_id);
    }
    throw duplicateName();
  }

  async function holderIsGone(tenantId: string, name: string, holderId: string, reservedAt: Date) {
    const { state, events } = await loadLabel(store, tenantId, holderId);
    if (events.length === 0) return Date.now() - reservedAt.getTime() > STALE_RESERVATION_MS;
    return state.status !== 'active' || normalizeName(state) !== name;
  }

  async function release(tenantId: string, name: string, labelId: string) {
    await sql`
      DELETE FROM cmd.label_names
       WHERE tenant_id = ${tenantId} AND kind = ${kind} AND normalized_name = ${name} AND label_id = ${labelId}`.execute(
      kysely,
    );
  }

  return {
    /**
     * Appends a label's events holding its name `after` (null: a delete) and freeing `before` once
     * they are stored.
     */
    async appendNamed(
      tenantId: string,
      labelId: string,
      names: { before: string | null; after: string | null; keepReservationOnFailure?: boolean },
      append: () => Promise<AppendResult>,
    ): Promise<AppendResult> {
      const { before, after } = names;
      const reserved = after !== null && after !== before ? await reserve(tenantId, after, labelId) : false;
      let result: AppendResult;
      try {
        result = await append();
      } catch (error) {
        if (reserved && !names.keepReservationOnFailure) await release(tenantId, after!, labelId);
        throw error;
      }
      if (before !== null && before !== after) await release(tenantId, before, labelId);
      return result;
    },

    /** Where a label sits in the tenant's order. */
    async orderOf(tenantId: string, labelId: string): Promise<number> {
      const { rows } = await sql<{ sort_order: number }>`
        SELECT sort_order FROM cmd.label_names WHERE tenant_id = ${tenantId} AND kind = ${kind} AND label_id = ${labelId}
         LIMIT 1`.execute(kysely);
      return rows[0]?.sort_order ?? 0;
    },

    /** Every label of the tenant that holds a name: live, or reserved by a create in flight. */
    async labelIds(tenantId: string): Promise<string[]> {
      const { rows } = await sql<{ label_id: string }>`
        SELECT DISTINCT label_id FROM cmd.label_names WHERE tenant_id = ${tenantId} AND kind = ${kind}`.execute(kysely);
      return rows.map((r) => r.label_id);
    },

    async reorder(tenantId: string, labelIds: readonly string[]): Promise<void> {
      await sql`
        UPDATE cmd.label_names n SET sort_order = x.i::int - 1
          FROM unnest(${labelIds}::uuid[]) WITH ORDINALITY AS x(id, i)
         WHERE n.tenant_id = ${tenantId} AND n.kind = ${kind} AND n.label_id = x.id`.execute(kysely);
    },
  };
}

export const normalizeName = (state: LabelState): string | null =>
  state.status === 'active' && state.definition ? normalizeLabelName(state.definition.name) : null;
