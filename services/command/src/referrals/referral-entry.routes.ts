import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
import { registerEndpoint, type AuthContext } from '@renkei/service-kit';
import { ownDepartmentsDecider } from '../phases/phase-master.decider.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { assertInstitutionExists, readState } from '../shared/facts.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import { etagOf, revisionIfMatch } from '../shared/command-context.ts';
import { referralEntryDecider, type EnterReferral } from './referral-entry.decider.ts';

/**
 * Referrals and reverse referrals entered by hand on an institution's referral page (spec §7). Each
 * becomes a fact like an imported row (identity `manual:<id>`), so the referrals projection joins it
 * to stays and counts it in the rollups; its stays show once the projection has linked them.
 */
export function registerReferralEntryRoutes(app: FastifyInstance, deps: { db: Database; store: EventStore }): void {
  const { db, store } = deps;
  const departmentsOf = async (tenantId: string) =>
    (await readState(store, tenantId, streamId(ownDepartmentsAggregate, tenantId), ownDepartmentsDecider)).state;

  const entryStream = (id: string) => streamId(referralEntryAggregate, id);

  /**
   * The set-up a create shares for both kinds (the institution exists, the tenant's departments, the
   * Idempotency-Key, a new stream); only the command built from the fact and the answer differ.
   */
  async function enter<A>(
    ctx: { auth: AuthContext; request: FastifyRequest; reply: FastifyReply },
    entry: { endpoint: string; institutionId: string; body: object; departmentId: string | null },
    build: (id: string, ownDepartmentIds: ReadonlySet<string>, department: Department) => Built<A>,
  ) {
    const { auth, request, reply } = ctx;
    await assertInstitutionExists(db, entry.institutionId);
    const departments = await departmentsOf(auth.tenantId);
    return idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: entry.endpoint,
        hashed: { medical_institution_id: entry.institutionId, body: entry.body },
        etag: () => etagOf(0),
      },
      async (id, retryable) => {
        const { command, answer } = build(
          id,
          new Set(departments.map((d) => d.id)),
          departments.find((d) => d.id === entry.departmentId) ?? null,
        );
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: entryStream(id),
            decider: referralEntryDecider,
            command,
            isNew: true,
            onRace: 'conflict',
            ...(retryable ? { eventId: (i: number) => deterministicId(id, 'enter', retryable.hash, String(i)) } : {}),
          },
        );
        return { body: answer, position: result.position };
      },
    );
  }

  /** The set-up a correction shares for both kinds (If-Match, a lost race is a 409, ETag and position). */
  async function update<A>(
    ctx: { auth: AuthContext; request: FastifyRequest; reply: FastifyReply },
    entry: { id: string; departmentId: string | null },
    build: (ownDepartmentIds: ReadonlySet<string>, department: Department) => Built<A>,
  ): Promise<A> {
    const { auth, request, reply } = ctx;
    const departments = await departmentsOf(auth.tenantId);
    const { command, answer } = build(
      new Set(departments.map((d) => d.id)),
      departments.find((d) => d.id === entry.departmentId) ?? null,
    );
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: entryStream(entry.id),
        decider: referralEntryDecider,
        command,
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return answer;
  }

  registerEndpoint(app, endpoints.createMedicalInstitutionReferral, ({ params, body, ...ctx }) =>
    enter(
      ctx,
      {
        endpoint: endpoints.createMedicalInstitutionReferral.id,
        institutionId: params.id,
        body,
        departmentId: body.own_department_id,
      },
      (id, ownDepartmentIds, department) => ({
        command: {
          type: 'EnterReferral',
          id,
          ownDepartmentIds,
          today: japanDay(new Date()),
          referral: referralFact(id, params.id, body, department),
        },
        answer: referralAnswer(id, body, department),
      }),
    ),
  );

  registerEndpoint(app, endpoints.createMedicalInstitutionReverseReferral, ({ params, body, ...ctx }) =>
    enter(
      ctx,
      {
        endpoint: endpoints.createMedicalInstitutionReverseReferral.id,
        institutionId: params.id,
        body,
        departmentId: body.specialty_id,
      },
      (id, ownDepartmentIds, department) => ({
        command: {
          type: 'EnterReverseReferral',
          id,
          ownDepartmentIds,
          today: japanDay(new Date()),
          reverseReferral: reverseFact(id, params.id, body, department),
        },
        answer: reverseAnswer(id, params.id, body),
      }),
    ),
  );

  registerEndpoint(app, endpoints.updateMedicalInstitutionReferral, ({ params, body, ...ctx }) =>
    update(ctx, { id: params.id, departmentId: body.own_department_id }, (ownDepartmentIds, department) => ({
      command: {
        type: 'UpdateReferral',
        id: params.id,
        ownDepartmentIds,
        today: japanDay(new Date()),
        referral: referralFact(params.id, params.medical_institution_id, body, department),
      },
      answer: referralAnswer(params.id, body, department),
    })),
  );

  registerEndpoint(app, endpoints.updateMedicalInstitutionReverseReferral, ({ params, body, ...ctx }) =>
    update(ctx, { id: params.id, departmentId: body.specialty_id }, (ownDepartmentIds, department) => ({
      command: {
        type: 'UpdateReverseReferral',
        id: params.id,
        ownDepartmentIds,
        today: japanDay(new Date()),
        reverseReferral: reverseFact(params.id, params.medical_institution_id, body, department),
      },
      answer: reverseAnswer(params.id, params.medical_institution_id, body),
    })),
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

/** The Japanese calendar day of an instant (Japan has no daylight saving: UTC + 9 hours). */
const japanDay = (at: Date): string => new Date(at.getTime() + 9 * 3_600_000).toISOString().slice(0, 10);

/** What a kind of entry decides and answers (the rest of a create or update is shared). */
interface Built<A> {
  command: EnterReferral;
  answer: A;
}

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
    referral_department_as_written: null,
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
