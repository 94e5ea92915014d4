import type { FastifyInstance, FastifyReply } from 'fastify';
import { HttpError, endpoints, type FieldError, type LabelValue, type MedicalInstitutionNote } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  checkLabelValues,
  medicalInstitutionCrmAggregate,
  medicalInstitutionMemoAggregate,
  medicalInstitutionSpecialNoteAggregate,
  ownDepartmentsAggregate,
  phaseMastersAggregate,
  tagAggregate,
  type LabelDefinition,
  type OwnDepartmentsReplaced,
  type PhaseMastersReplaced,
  type TagEvent,
} from '@renkei/domain';
import type { EventStore, NewEvent } from '@renkei/event-store';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { etagOf, readIfMatch } from '../shared/command-context.ts';
import { loadLabel } from '../labels/label.routes.ts';
import { toLabelDefinition } from '../labels/label.decider.ts';
import {
  appendDecided,
  assertInstitutionExists,
  callerRef,
  crmStreamKey,
  phaseEnabled,
  readOwnStream,
  withRetry,
} from './crm-support.ts';
import {
  decideLabelValues,
  decideNote,
  decidePhase,
  decideTags,
  foldCrm,
  foldNote,
} from './medical-institution.decider.ts';

export interface MedicalInstitutionRouteDeps {
  db: Database;
  store: EventStore;
}

/** The tenant's phase masters as last replaced, with the stream revision a replacement appends at. */
export async function readPhaseMasters(store: EventStore, tenantId: string) {
  const { events, revision } = await readOwnStream(store, phaseMastersAggregate, tenantId, tenantId);
  const last = events[events.length - 1];
  return { list: last ? (last.data as PhaseMastersReplaced).phase_masters : [], revision };
}

/** The tenant's own departments as last replaced, with the stream revision a replacement appends at. */
export async function readOwnDepartments(store: EventStore, tenantId: string) {
  const { events, revision } = await readOwnStream(store, ownDepartmentsAggregate, tenantId, tenantId);
  const last = events[events.length - 1];
  return { list: last ? (last.data as OwnDepartmentsReplaced).own_departments : [], revision };
}

export function registerMedicalInstitutionRoutes(app: FastifyInstance, deps: MedicalInstitutionRouteDeps): void {
  const { db, store } = deps;

  /**
   * One decision on the tenant's CRM stream of an institution: read it, decide on the folded state and
   * append what was decided at the revision read (the caller's withRetry runs it again on a conflict).
   */
  async function decideOnCrm<D extends Omit<NewEvent, 'metadata'>>(
    auth: AuthContext,
    institutionId: string,
    requestId: string,
    reply: FastifyReply,
    decide: (state: ReturnType<typeof foldCrm>) => D[],
  ) {
    const key = crmStreamKey(auth.tenantId, institutionId);
    const { events, revision } = await readOwnStream(store, medicalInstitutionCrmAggregate, key, auth.tenantId);
    const decided = decide(foldCrm(events));
    if (decided.length > 0) {
      const result = await appendDecided(
        store,
        { aggregate: medicalInstitutionCrmAggregate, id: key, revision },
        decided,
        auth,
        requestId,
      );
      reply.position(result.position);
    }
    return { events, decided };
  }

  async function putNote(
    kind: 'memo' | 'special_note',
    auth: AuthContext,
    requestId: string,
    institutionId: string,
    content: string,
    ifMatch: number | null,
    reply: { position(p: import('@renkei/event-store').Position): unknown; header(k: string, v: string): unknown },
  ): Promise<MedicalInstitutionNote> {
    await assertInstitutionExists(db, institutionId);
    const aggregate = kind === 'memo' ? medicalInstitutionMemoAggregate : medicalInstitutionSpecialNoteAggregate;
    const key = crmStreamKey(auth.tenantId, institutionId);
    const { events, revision } = await readOwnStream(store, aggregate, key, auth.tenantId);
    const version = revision + 1;
    // The version the editor started from: anything else means someone saved in between.
    if (ifMatch !== null && ifMatch !== version) throw new HttpError(409);
    const decided = decideNote(kind, institutionId, foldNote(events), content);
    const user = await callerRef(store, auth);
    if (decided.length === 0) {
      const last = events[events.length - 1];
      void reply.header('etag', etagOf(version));
      return {
        medical_institution_id: institutionId,
        content,
        updated_by: last
          ? { id: last.metadata.account_id ?? '', name: last.metadata.account_id === auth.accountId ? user.name : '' }
          : null,
        updated_at: last ? last.created_at.toISOString() : null,
        version,
      };
    }
    const result = await appendDecided(store, { aggregate: aggregate, id: key, revision }, decided, auth, requestId);
    reply.position(result.position);
    void reply.header('etag', etagOf(result.revision + 1));
    return {
      medical_institution_id: institutionId,
      content,
      updated_by: user,
      updated_at: new Date().toISOString(),
      version: result.revision + 1,
    };
  }

  registerEndpoint(app, endpoints.updateMemo, async ({ params, body, auth, request, reply }) =>
    putNote('memo', auth, request.id, params.id, body.content, readIfMatch(request.headers['if-match']), reply),
  );
  registerEndpoint(app, endpoints.updateSpecialNote, async ({ params, body, auth, request, reply }) =>
    putNote('special_note', auth, request.id, params.id, body.content, readIfMatch(request.headers['if-match']), reply),
  );

  registerEndpoint(app, endpoints.updatePhase, async ({ params, body, auth, request, reply }) => {
    if (!(await phaseEnabled(store, auth.tenantId))) throw new HttpError(403, 'フェーズ機能が有効になっていません。');
    await assertInstitutionExists(db, params.id);
    let phase: { id: string; name: string } | null = null;
    if (body.phase_master_id !== null) {
      phase = (await readPhaseMasters(store, auth.tenantId)).list.find((p) => p.id === body.phase_master_id) ?? null;
      if (!phase)
        throw new HttpError(422, undefined, {
          errors: [{ field: 'phase_master_id', message: 'フェーズが見つかりません' }],
        });
    }
    const user = await callerRef(store, auth);
    return withRetry(async () => {
      const { events, decided } = await decideOnCrm(auth, params.id, request.id, reply, (state) =>
        decidePhase(state, params.id, phase),
      );
      let changedAt: string | null = null;
      let changedUser = null;
      if (decided.length > 0) {
        changedAt = new Date().toISOString();
        changedUser = user;
      } else {
        const last = [...events].reverse().find((e) => e.type === 'MedicalInstitutionPhaseChanged');
        changedAt = last ? last.created_at.toISOString() : null;
        changedUser = last
          ? { id: last.metadata.account_id ?? '', name: last.metadata.account_id === auth.accountId ? user.name : '' }
          : null;
      }
      return {
        medical_institution_id: params.id,
        phase_master_id: phase?.id ?? null,
        phase_name: phase?.name ?? null,
        changed_user: changedUser,
        changed_at: changedAt,
      };
    });
  });

  registerEndpoint(app, endpoints.updateTags, async ({ params, body, auth, request, reply }) => {
    await assertInstitutionExists(db, params.id);
    const tags = await Promise.all(
      body.tag_ids.map(async (id) => {
        const { events } = await readOwnStream(store, tagAggregate, id, auth.tenantId);
        let name: string | null = null;
        for (const e of events as unknown as TagEvent[]) {
          if (e.type === 'TagCreated' || e.type === 'TagUpdated') name = e.data.name;
          if (e.type === 'TagDeleted') name = null;
        }
        return { id, name };
      }),
    );
    const errors: FieldError[] = tags.flatMap((t, i) =>
      t.name === null ? [{ field: `tag_ids.${i}`, message: 'タグが見つかりません' }] : [],
    );
    if (errors.length > 0) throw new HttpError(422, undefined, { errors });
    await withRetry(() =>
      decideOnCrm(auth, params.id, request.id, reply, (state) => decideTags(state, params.id, body.tag_ids)),
    );
    return tags.map((t) => ({ id: t.id, name: t.name! }));
  });

  registerEndpoint(app, endpoints.updateLabelValues, async ({ params, body, auth, request, reply }) => {
    const institutionId = params.medical_institution_id;
    await assertInstitutionExists(db, institutionId);
    const labels = new Map<string, LabelDefinition>();
    for (const id of new Set(body.label_values.map((v) => v.label_id))) {
      const { state } = await loadLabel(store, auth.tenantId, id);
      if (state.status === 'active') labels.set(id, toLabelDefinition(state.definition!));
    }
    const ownDepartments = new Set((await readOwnDepartments(store, auth.tenantId)).list.map((d) => d.id));
    const checked = checkLabelValues(body.label_values, labels, ownDepartments);
    if (checked.problems.length > 0) {
      throw new HttpError(422, undefined, {
        errors: checked.problems.map((p) => ({ field: `label_values.${p.index}.${p.field}`, message: p.message })),
      });
    }
    return withRetry(async () => {
      const { events, decided } = await decideOnCrm(auth, institutionId, request.id, reply, (state) =>
        decideLabelValues(state, institutionId, checked.values, checked.removedLabelIds),
      );
      const after = foldCrm([...events, ...decided.map((e) => ({ type: e.type, data: e.data }))]);
      return [...after.labelValues.values()] as LabelValue[];
    });
  });
}
