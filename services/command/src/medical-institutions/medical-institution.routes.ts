import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints, type LabelValue, type MedicalInstitutionNote, type UserRef } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  medicalInstitutionCrmAggregate,
  medicalInstitutionCrmKey,
  medicalInstitutionMemoAggregate,
  medicalInstitutionSpecialNoteAggregate,
  ownDepartmentsAggregate,
  phaseMastersAggregate,
  tagAggregate,
  type LabelDefinition,
} from '@renkei/domain';
import { streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { etagOf, readIfMatch } from '../shared/command-context.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { assertInstitutionExists, callerRef, phaseEnabled, readState } from '../shared/facts.ts';
import { loadLabel } from '../labels/label-names.ts';
import { toLabelDefinition } from '../labels/label.decider.ts';
import { ownDepartmentsDecider, phaseMastersDecider } from '../phases/phase-master.decider.ts';
import { tagDecider } from '../tags/tag.decider.ts';
import { createTagUsage } from '../tags/tag-usage.ts';
import { crmDecider, memoDecider, specialNoteDecider, type CrmState } from './medical-institution.decider.ts';

export interface MedicalInstitutionRouteDeps {
  db: Database;
  store: EventStore;
}

/** Who made the last of these events, as shown beside it (the caller's name is the one known here). */
const lastChange = (event: RecordedEvent | undefined, auth: AuthContext, caller: UserRef) =>
  event
    ? {
        by: {
          id: event.metadata.account_id ?? '',
          name: event.metadata.account_id === auth.accountId ? caller.name : '',
        },
        at: event.created_at.toISOString(),
      }
    : null;

/**
 * `If-Match: <version>` on a part of the crm stream (phase, tags): a save made since is a 409. Without
 * it the last save wins, decided again on the newer stream.
 */
function versionGuard(header: string | string[] | undefined, version: (state: CrmState) => number) {
  const expected = readIfMatch(header);
  return expected === null ? {} : { ifMatch: { matches: (state: CrmState) => version(state) === expected } };
}

export function registerMedicalInstitutionRoutes(app: FastifyInstance, deps: MedicalInstitutionRouteDeps): void {
  const { db, store } = deps;
  const tagUsage = createTagUsage(db, store);

  async function putNote(
    kind: 'memo' | 'special_note',
    auth: AuthContext,
    requestId: string,
    institutionId: string,
    content: string,
    ifMatchHeader: string | string[] | undefined,
  ): Promise<{ note: MedicalInstitutionNote; position: RecordedEvent['position'] | null }> {
    await assertInstitutionExists(db, institutionId);
    // The version the editor started from is the number of saves (revision + 1): anything else means
    // someone saved in between.
    const ifMatch = readIfMatch(ifMatchHeader);
    const key = medicalInstitutionCrmKey(auth.tenantId, institutionId);
    const request = {
      command: { medicalInstitutionId: institutionId, content },
      ifMatch: ifMatch === null ? null : { matches: (_: string, revision: number) => revision + 1 === ifMatch },
      onRace: 'conflict' as const,
    };
    const result =
      kind === 'memo'
        ? await handleCommand(
            { store, auth, requestId },
            { ...request, stream: streamId(medicalInstitutionMemoAggregate, key), decider: memoDecider },
          )
        : await handleCommand(
            { store, auth, requestId },
            { ...request, stream: streamId(medicalInstitutionSpecialNoteAggregate, key), decider: specialNoteDecider },
          );
    const caller = await callerRef(store, auth);
    const last = result.position
      ? { by: caller, at: new Date().toISOString() }
      : lastChange(result.stored.at(-1), auth, caller);
    const version = result.revision + 1;
    return {
      note: {
        medical_institution_id: institutionId,
        content,
        updated_by: last?.by ?? null,
        updated_at: last?.at ?? null,
        version,
      },
      position: result.position,
    };
  }

  for (const [endpoint, kind] of [
    [endpoints.updateMemo, 'memo'],
    [endpoints.updateSpecialNote, 'special_note'],
  ] as const) {
    registerEndpoint(app, endpoint, async ({ params, body, auth, request, reply }) => {
      const { note, position } = await putNote(
        kind,
        auth,
        request.id,
        params.id,
        body.content,
        request.headers['if-match'],
      );
      if (position) reply.position(position);
      void reply.header('etag', etagOf(note.version));
      return note;
    });
  }

  const crmStream = (auth: AuthContext, institutionId: string) =>
    streamId(medicalInstitutionCrmAggregate, medicalInstitutionCrmKey(auth.tenantId, institutionId));

  registerEndpoint(app, endpoints.updatePhase, async ({ params, body, auth, request, reply }) => {
    if (!(await phaseEnabled(store, auth.tenantId))) throw new HttpError(403, 'フェーズ機能が有効になっていません。');
    await assertInstitutionExists(db, params.id);
    const phaseMasters =
      body.phase_master_id === null
        ? []
        : (await readState(store, auth.tenantId, streamId(phaseMastersAggregate, auth.tenantId), phaseMastersDecider))
            .state;
    const caller = await callerRef(store, auth);
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: crmStream(auth, params.id),
        decider: crmDecider,
        command: {
          type: 'ChangePhase',
          medicalInstitutionId: params.id,
          phaseMasterId: body.phase_master_id,
          phaseMasters,
        },
        ...versionGuard(request.headers['if-match'], (s) => s.phaseVersion),
        // The phase is replaced whole: deciding again on a newer stream is what the user asked for.
        onRace: 'recompute',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.after.phaseVersion));
    const last = result.position
      ? { by: caller, at: new Date().toISOString() }
      : lastChange(
          result.stored.findLast((e) => e.type === 'MedicalInstitutionPhaseChanged'),
          auth,
          caller,
        );
    return {
      medical_institution_id: params.id,
      phase_master_id: body.phase_master_id,
      phase_name: phaseMasters.find((p) => p.id === body.phase_master_id)?.name ?? null,
      changed_user: last?.by ?? null,
      changed_at: last?.at ?? null,
    };
  });

  registerEndpoint(app, endpoints.updateTags, async ({ params, body, auth, request, reply }) => {
    await assertInstitutionExists(db, params.id);
    const tags = await Promise.all(
      body.tag_ids.map(async (id) => {
        const { state } = await readState(store, auth.tenantId, streamId(tagAggregate, id), tagDecider);
        return { id, name: state.status === 'active' ? state.name : null };
      }),
    );
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: crmStream(auth, params.id),
        decider: crmDecider,
        command: { type: 'ChangeTags', medicalInstitutionId: params.id, tags },
        ...versionGuard(request.headers['if-match'], (s) => s.tagsVersion),
        onRace: 'recompute',
        append: (events, expectedRevision) =>
          tagUsage.append(crmStream(auth, params.id), auth.tenantId, events, expectedRevision),
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.after.tagsVersion));
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
    const ownDepartments = await readState(
      store,
      auth.tenantId,
      streamId(ownDepartmentsAggregate, auth.tenantId),
      ownDepartmentsDecider,
    );
    // A replace, but a POST: a retry with the same Idempotency-Key answers the first answer, and the
    // key with another body is a 422, as on every command POST.
    return idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.updateLabelValues.id,
        hashed: { medical_institution_id: institutionId, body },
      },
      async (changeId, retryable) => {
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: crmStream(auth, institutionId),
            decider: crmDecider,
            command: {
              type: 'ChangeLabelValues',
              medicalInstitutionId: institutionId,
              values: body.label_values,
              labels,
              ownDepartmentIds: new Set(ownDepartments.state.map((d) => d.id)),
            },
            onRace: 'recompute',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(changeId, 'label-values', retryable.hash, String(i)) }
              : {}),
          },
        );
        // The values of the labels this request named, as stored. Not every value of the institution:
        // values set by an import live in the import's streams, which this stream does not see, so a
        // fuller list would silently leave those out (GET …/label_values answers every value).
        const named = new Set(body.label_values.map((v) => v.label_id));
        const values: LabelValue[] = [...result.after.labelValues.values()].filter((v) => named.has(v.label_id));
        return { body: values, position: result.position };
      },
    );
  });
}
