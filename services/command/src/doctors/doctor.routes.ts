import type { FastifyInstance } from 'fastify';
import { endpoints, type Doctor } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { doctorAggregate, type DoctorFields } from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { etagOf, revisionIfMatch } from '../shared/command-context.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { assertInstitutionExists } from '../shared/facts.ts';
import { doctorDecider } from './doctor.decider.ts';

export interface DoctorRouteDeps {
  db: Database;
  store: EventStore;
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

  registerEndpoint(app, endpoints.createDoctor, async ({ params, body, auth, request, reply }) => {
    await assertInstitutionExists(db, params.id);
    return idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.createDoctor.id,
        // The key names one doctor of one institution.
        hashed: { medical_institution_id: params.id, body },
        etag: (d: Doctor) => etagOf(d.version),
      },
      async (doctorId, retryable) => {
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: streamId(doctorAggregate, doctorId),
            decider: doctorDecider,
            command: { type: 'AddDoctor', doctorId, medicalInstitutionId: params.id, input: body },
            isNew: true,
            onRace: 'conflict',
            ...(retryable
              ? { eventId: (i: number) => deterministicId(doctorId, 'create', retryable.hash, String(i)) }
              : {}),
          },
        );
        return { body: toDoctor(result.after.fields!, new Date(), result.revision), position: result.position };
      },
    );
  });

  registerEndpoint(app, endpoints.updateDoctor, async ({ params, body, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(doctorAggregate, params.id),
        decider: doctorDecider,
        command: {
          type: 'UpdateDoctor',
          doctorId: params.id,
          medicalInstitutionId: params.medical_institution_id,
          input: body,
        },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    // Unchanged: the time of the doctor's last change.
    const updatedAt = result.position ? new Date() : (result.stored.at(-1)?.created_at ?? new Date());
    return toDoctor(result.after.fields!, updatedAt, result.revision);
  });

  registerEndpoint(app, endpoints.deleteDoctor, async ({ params, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(doctorAggregate, params.id),
        decider: doctorDecider,
        command: { type: 'RemoveDoctor', doctorId: params.id, medicalInstitutionId: params.medical_institution_id },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    return null;
  });
}
