import type { FastifyInstance } from 'fastify';
import {
  endpoints,
  type Referral,
  type ReferralInput,
  type ReverseReferral,
  type ReverseReferralInput,
} from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  ownDepartmentsAggregate,
  referralEntryAggregate,
  type ReferralFact,
  type ReverseReferralFact,
} from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { patientKeyOf } from '@renkei/referral-files';
import { registerEndpoint } from '@renkei/service-kit';
import { ownDepartmentsDecider } from '../phases/phase-master.decider.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { assertInstitutionExists, readState } from '../shared/facts.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { etagOf, revisionIfMatch } from '../shared/command-context.ts';
import { referralEntryDecider } from './referral-entry.decider.ts';

/**
 * Referrals and reverse referrals entered by hand on an institution's referral page (spec §7). Each
 * becomes a fact like an imported row (identity `manual:<id>`), so the referrals projection joins it
 * to stays and counts it in the rollups; its stays show once the projection has linked them.
 */
export function registerReferralEntryRoutes(app: FastifyInstance, deps: { db: Database; store: EventStore }): void {
  const { db, store } = deps;
  const departmentsOf = async (tenantId: string) =>
    (await readState(store, tenantId, streamId(ownDepartmentsAggregate, tenantId), ownDepartmentsDecider)).state;

  registerEndpoint(app, endpoints.createMedicalInstitutionReferral, async ({ params, body, auth, request, reply }) => {
    await assertInstitutionExists(db, params.id);
    const departments = await departmentsOf(auth.tenantId);
    return idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.createMedicalInstitutionReferral.id,
        hashed: { medical_institution_id: params.id, body },
        etag: () => etagOf(0),
      },
      async (id, retryable) => {
        const department = departments.find((d) => d.id === body.own_department_id) ?? null;
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: streamId(referralEntryAggregate, id),
            decider: referralEntryDecider,
            command: {
              type: 'EnterReferral',
              id,
              ownDepartmentIds: new Set(departments.map((d) => d.id)),
              referral: referralFact(id, params.id, body, department),
            },
            isNew: true,
            onRace: 'conflict',
            ...(retryable ? { eventId: (i: number) => deterministicId(id, 'enter', retryable.hash, String(i)) } : {}),
          },
        );
        return { body: referralAnswer(id, body, department), position: result.position };
      },
    );
  });

  registerEndpoint(
    app,
    endpoints.createMedicalInstitutionReverseReferral,
    async ({ params, body, auth, request, reply }) => {
      await assertInstitutionExists(db, params.id);
      const departments = await departmentsOf(auth.tenantId);
      return idempotentCreate(
        db,
        {
          request,
          reply,
          tenantId: auth.tenantId,
          endpoint: endpoints.createMedicalInstitutionReverseReferral.id,
          hashed: { medical_institution_id: params.id, body },
          etag: () => etagOf(0),
        },
        async (id, retryable) => {
          const department = departments.find((d) => d.id === body.specialty_id) ?? null;
          const result = await handleCommand(
            { store, auth, requestId: request.id },
            {
              stream: streamId(referralEntryAggregate, id),
              decider: referralEntryDecider,
              command: {
                type: 'EnterReverseReferral',
                id,
                ownDepartmentIds: new Set(departments.map((d) => d.id)),
                reverseReferral: reverseFact(id, params.id, body, department),
              },
              isNew: true,
              onRace: 'conflict',
              ...(retryable ? { eventId: (i: number) => deterministicId(id, 'enter', retryable.hash, String(i)) } : {}),
            },
          );
          return { body: reverseAnswer(id, params.id, body), position: result.position };
        },
      );
    },
  );

  const entryStream = (id: string) => streamId(referralEntryAggregate, id);

  registerEndpoint(app, endpoints.updateMedicalInstitutionReferral, async ({ params, body, auth, request, reply }) => {
    const departments = await departmentsOf(auth.tenantId);
    const department = departments.find((d) => d.id === body.own_department_id) ?? null;
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: entryStream(params.id),
        decider: referralEntryDecider,
        command: {
          type: 'UpdateReferral',
          id: params.id,
          ownDepartmentIds: new Set(departments.map((d) => d.id)),
          referral: referralFact(params.id, params.medical_institution_id, body, department),
        },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return referralAnswer(params.id, body, department);
  });

  registerEndpoint(
    app,
    endpoints.updateMedicalInstitutionReverseReferral,
    async ({ params, body, auth, request, reply }) => {
      const departments = await departmentsOf(auth.tenantId);
      const department = departments.find((d) => d.id === body.specialty_id) ?? null;
      const result = await handleCommand(
        { store, auth, requestId: request.id },
        {
          stream: entryStream(params.id),
          decider: referralEntryDecider,
          command: {
            type: 'UpdateReverseReferral',
            id: params.id,
            ownDepartmentIds: new Set(departments.map((d) => d.id)),
            reverseReferral: reverseFact(params.id, params.medical_institution_id, body, department),
          },
          ifMatch: revisionIfMatch(request.headers['if-match']),
          onRace: 'conflict',
        },
      );
      if (result.position) reply.position(result.position);
      void reply.header('etag', etagOf(result.revision));
      return reverseAnswer(params.id, params.medical_institution_id, body);
    },
  );

  // Withdrawing a hand entry is the same command for both kinds; the kind keeps a referral's id from
  // withdrawing a reverse referral and the reverse.
  for (const [endpoint, kind] of [
    [endpoints.deleteMedicalInstitutionReferral, 'referral'],
    [endpoints.deleteMedicalInstitutionReverseReferral, 'reverse'],
  ] as const) {
    registerEndpoint(app, endpoint, async ({ params, auth, request, reply }) => {
      const result = await handleCommand(
        { store, auth, requestId: request.id },
        {
          stream: entryStream(params.id),
          decider: referralEntryDecider,
          command: { type: 'DeleteEntry', kind, medicalInstitutionId: params.medical_institution_id },
          ifMatch: revisionIfMatch(request.headers['if-match']),
          onRace: 'conflict',
        },
      );
      if (result.position) reply.position(result.position);
      return reply.code(204).send();
    });
  }
}

type Department = { id: string; name: string } | null;

/** A hand entry as a fact shaped like an imported row (identity `manual:<id>`), for enter and update alike. */
function referralFact(id: string, institutionId: string, body: ReferralInput, department: Department): ReferralFact {
  return {
    identity: `manual:${id}`,
    row_number: 0,
    referral_date: body.referral_date,
    patient_id: body.patient_id,
    patient_key: patientKeyOf(body.patient_id),
    medical_institution_id: institutionId,
    institution_code: null,
    institution_name: null,
    from_department: null,
    from_doctor: body.doctor_name_from,
    to_department: department?.name ?? null,
    own_department_id: body.own_department_id,
    to_doctor: body.doctor_name_to,
    purpose: body.reason_for_presenting,
    first_visit: null,
    source_id: null,
  };
}

function reverseFact(
  id: string,
  institutionId: string,
  body: ReverseReferralInput,
  department: Department,
): ReverseReferralFact {
  return {
    identity: `manual:${id}`,
    row_number: 0,
    reverse_referral_date: body.reverse_referral_date,
    patient_id: body.patient_id,
    patient_key: patientKeyOf(body.patient_id),
    medical_institution_id: institutionId,
    institution_code: null,
    institution_name: null,
    own_department: department?.name ?? null,
    own_department_id: body.specialty_id,
    source_id: null,
  };
}

/** The answer of a save (its stays show once the projection has linked them). */
function referralAnswer(id: string, body: ReferralInput, department: Department): Referral {
  return {
    id,
    referral_date: body.referral_date,
    patient_id: body.patient_id,
    doctor_name_to: body.doctor_name_to,
    doctor_name_from: body.doctor_name_from,
    reason_for_presenting: body.reason_for_presenting,
    referral_department: department && { id: department.id, name: department.name },
    hospital_admissions: [],
    reverse_referral: null,
    entered_by_hand: true,
  };
}

function reverseAnswer(id: string, institutionId: string, body: ReverseReferralInput): ReverseReferral {
  return {
    id,
    medical_institution_id_from: null,
    medical_institution_id_to: institutionId,
    specialty_id: body.specialty_id,
    reverse_referral_date: body.reverse_referral_date,
    patient_id: body.patient_id,
    control_id: null,
    importing_log_id: null,
  };
}
