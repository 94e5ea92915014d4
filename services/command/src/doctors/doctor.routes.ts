import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { HttpError, endpoints, type Doctor, type DoctorInput } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { doctorAggregate, stableJson, type DoctorFields, type MedicalInstitutionCrmEvent } from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { etagOf, eventMetadata, readIfMatch } from '../shared/command-context.ts';
import { assertInstitutionExists, readOwnStream } from '../medical-institutions/crm-support.ts';

export interface DoctorRouteDeps {
  db: Database;
  store: EventStore;
}

interface DoctorState {
  status: 'absent' | 'active' | 'removed';
  fields: DoctorFields | null;
  updatedAt: Date | null;
}

export function foldDoctor(events: readonly { type: string; data: unknown; created_at?: Date }[]): DoctorState {
  let state: DoctorState = { status: 'absent', fields: null, updatedAt: null };
  for (const e of events) {
    const event = e as MedicalInstitutionCrmEvent;
    if (event.type === 'DoctorAdded' || event.type === 'DoctorUpdated')
      state = { status: 'active', fields: event.data, updatedAt: e.created_at ?? null };
    else if (event.type === 'DoctorRemoved') state = { ...state, status: 'removed' };
  }
  return state;
}

/** Pure: the doctor's fields from the input; no event when nothing changes. */
export function decideDoctor(
  state: DoctorState,
  doctorId: string,
  institutionId: string,
  input: DoctorInput,
): MedicalInstitutionCrmEvent[] {
  const fields: DoctorFields = {
    doctor_id: doctorId,
    medical_institution_id: institutionId,
    name: input.name,
    division: input.division,
    position: input.position,
    honorific: input.honorific,
    email: input.email,
    phone_number: input.phone_number,
    profile: input.profile,
    memo: input.memo,
  };
  if (state.fields && stableJson(state.fields) === stableJson(fields)) return [];
  return [{ type: state.status === 'absent' ? 'DoctorAdded' : 'DoctorUpdated', data: fields }];
}

const toDoctor = (f: DoctorFields, updatedAt: Date, version: number): Doctor => ({
  id: f.doctor_id,
  medical_institution_id: f.medical_institution_id,
  division: f.division,
  position: f.position,
  name: f.name,
  honorific: f.honorific,
  email: f.email,
  phone_number: f.phone_number,
  profile: f.profile,
  memo: f.memo,
  updated_date: updatedAt.toISOString(),
  version,
});

export function registerDoctorRoutes(app: FastifyInstance, deps: DoctorRouteDeps): void {
  const { db, store } = deps;

  async function loadDoctor(tenantId: string, institutionId: string, doctorId: string) {
    const { events, revision } = await readOwnStream(store, doctorAggregate, doctorId, tenantId);
    const state = foldDoctor(events);
    // A doctor of another institution is not found under this one.
    if (state.status !== 'active' || state.fields?.medical_institution_id !== institutionId) throw new HttpError(404);
    return { state, revision };
  }

  registerEndpoint(app, endpoints.createDoctor, async ({ params, body, auth, request, reply }) => {
    await assertInstitutionExists(db, params.id);
    const doctorId = randomUUID();
    const events = decideDoctor({ status: 'absent', fields: null, updatedAt: null }, doctorId, params.id, body);
    const result = await store.append(
      streamId(doctorAggregate, doctorId),
      events.map((e) => ({ ...e, metadata: eventMetadata(auth, request.id) })),
      { expectedRevision: 'no_stream' },
    );
    reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return toDoctor(events[0]!.data as DoctorFields, new Date(), result.revision);
  });

  registerEndpoint(app, endpoints.updateDoctor, async ({ params, body, auth, request, reply }) => {
    const ifMatch = readIfMatch(request.headers['if-match']);
    const { state, revision } = await loadDoctor(auth.tenantId, params.medical_institution_id, params.id);
    if (ifMatch !== null && ifMatch !== revision) throw new HttpError(409);
    const events = decideDoctor(state, params.id, params.medical_institution_id, body);
    if (events.length === 0) return toDoctor(state.fields!, state.updatedAt ?? new Date(), revision);
    const result = await store.append(
      streamId(doctorAggregate, params.id),
      events.map((e) => ({ ...e, metadata: eventMetadata(auth, request.id) })),
      { expectedRevision: ifMatch ?? revision },
    );
    reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return toDoctor(events[0]!.data as DoctorFields, new Date(), result.revision);
  });

  registerEndpoint(app, endpoints.deleteDoctor, async ({ params, auth, request, reply }) => {
    const ifMatch = readIfMatch(request.headers['if-match']);
    const { state, revision } = await loadDoctor(auth.tenantId, params.medical_institution_id, params.id);
    if (ifMatch !== null && ifMatch !== revision) throw new HttpError(409);
    const result = await store.append(
      streamId(doctorAggregate, params.id),
      [
        {
          type: 'DoctorRemoved',
          data: {
            doctor_id: params.id,
            medical_institution_id: params.medical_institution_id,
            name: state.fields!.name,
          },
          metadata: eventMetadata(auth, request.id),
        },
      ],
      { expectedRevision: revision },
    );
    reply.position(result.position);
    return null;
  });
}
