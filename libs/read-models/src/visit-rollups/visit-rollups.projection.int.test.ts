import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { projectionTest } from '@renkei/projections/testing';
import { visitRollupsProjection } from './visit-rollups.projection.ts';
import { blankCommunication } from '@renkei/domain/testing';

const test = projectionTest(visitRollupsProjection);
const [alice, bob, institution] = [randomUUID(), randomUUID(), randomUUID()];

const fields = (id: string, patch: Record<string, unknown> = {}) =>
  blankCommunication(
    { communication_id: id, medical_institution_id: institution, user_id: alice, acted_date: '2026-04-10' },
    patch,
  );
const task = (id: string) => ({ task_id: id, title: '資料送付', staff_id: null, deadline: null });
const stream = (id: string) => `communication-${id}`;
const day = (d: string) => new Date(`${d}T00:00:00`);

describe('visit rollups projection', () => {
  it('counts visits, doctor interviews and visits with a task per day and month, and leaves other types out', async () => {
    const [a, b, c, d] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const scenario = test.given([
      {
        type: 'CommunicationCreated',
        stream: stream(a),
        data: { ...fields(a, { is_doctor_attended: true }), tasks: [task(randomUUID())] },
      },
      {
        type: 'CommunicationCreated',
        stream: stream(b),
        data: { ...fields(b, { acted_date: '2026-04-20' }), tasks: [] },
      },
      {
        type: 'CommunicationCreated',
        stream: stream(c),
        data: { ...fields(c, { communication_type: 'new_visit', user_id: bob }), tasks: [] },
      },
      {
        type: 'CommunicationCreated',
        stream: stream(d),
        data: { ...fields(d, { communication_type: 'phone' }), tasks: [task(randomUUID())] },
      },
    ]);
    await scenario.thenRows('visit_daily_rollups', [
      {
        acted_date: day('2026-04-10'),
        user_id: alice,
        communication_type: 'visit',
        visit_count: 1,
        doctor_interview_count: 1,
        next_action_count: 1,
      },
      {
        acted_date: day('2026-04-20'),
        user_id: alice,
        communication_type: 'visit',
        visit_count: 1,
        doctor_interview_count: 0,
        next_action_count: 0,
      },
      {
        acted_date: day('2026-04-10'),
        user_id: bob,
        communication_type: 'new_visit',
        visit_count: 1,
        doctor_interview_count: 0,
        next_action_count: 0,
      },
    ]);
    await scenario.thenRows('visit_monthly_rollups', [
      { month: day('2026-04-01'), user_id: alice, visit_count: 2, doctor_interview_count: 1, next_action_count: 1 },
      { month: day('2026-04-01'), user_id: bob, visit_count: 1, doctor_interview_count: 0, next_action_count: 0 },
    ]);
  });

  it('moves a visit edited to another day, staff member or type, and follows deletes and task links', async () => {
    const [a, b, call, later, born] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const scenario = test.given(
      [
        { type: 'CommunicationCreated', stream: stream(a), data: { ...fields(a), tasks: [task(born)] } },
        { type: 'CommunicationCreated', stream: stream(b), data: { ...fields(b), tasks: [] } },
        {
          type: 'CommunicationCreated',
          stream: stream(call),
          data: { ...fields(call, { communication_type: 'phone' }), tasks: [] },
        },
      ],
      [
        // a moves to May and to bob; its task is deleted, so it no longer has a next action.
        {
          type: 'CommunicationUpdated',
          stream: stream(a),
          data: fields(a, { acted_date: '2026-05-02', user_id: bob, is_doctor_attended: true }),
        },
        { type: 'TaskDeleted', stream: `task-${born}`, data: { task_id: born, communication_id: a } },
        // b is deleted; the call becomes a visit and gets a task later.
        {
          type: 'CommunicationDeleted',
          stream: stream(b),
          data: { communication_id: b, medical_institution_id: institution },
        },
        { type: 'CommunicationUpdated', stream: stream(call), data: fields(call, { communication_type: 'new_visit' }) },
        {
          type: 'TaskCreated',
          stream: `task-${later}`,
          data: {
            task_id: later,
            title: '再訪問',
            staff_id: null,
            deadline: null,
            medical_institution_id: institution,
            communication_id: call,
            status: 'incomplete',
          },
        },
      ],
    );
    await scenario.thenRows('visit_daily_rollups', [
      {
        acted_date: day('2026-05-02'),
        user_id: bob,
        communication_type: 'visit',
        visit_count: 1,
        doctor_interview_count: 1,
        next_action_count: 0,
      },
      {
        acted_date: day('2026-04-10'),
        user_id: alice,
        communication_type: 'new_visit',
        visit_count: 1,
        doctor_interview_count: 0,
        next_action_count: 1,
      },
    ]);
    await scenario.thenRows('visit_monthly_rollups', [
      { month: day('2026-05-01'), user_id: bob, communication_type: 'visit', visit_count: 1, next_action_count: 0 },
      {
        month: day('2026-04-01'),
        user_id: alice,
        communication_type: 'new_visit',
        visit_count: 1,
        next_action_count: 1,
      },
    ]);
    await scenario.thenRows('visit_sources', [
      { communication_id: a, user_id: bob, communication_type: 'visit' },
      { communication_id: call, user_id: alice, communication_type: 'new_visit' },
    ]);
  });

  it('sums the staff members of a day per type, and follows a visit moved to another day', async () => {
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const scenario = test.given(
      [
        {
          type: 'CommunicationCreated',
          stream: stream(a),
          data: { ...fields(a, { is_doctor_attended: true }), tasks: [task(randomUUID())] },
        },
        { type: 'CommunicationCreated', stream: stream(b), data: { ...fields(b, { user_id: bob }), tasks: [] } },
        {
          type: 'CommunicationCreated',
          stream: stream(c),
          data: { ...fields(c, { user_id: bob, is_doctor_attended: true }), tasks: [] },
        },
      ],
      // A later batch: c moves to another day, so both days are summed again from stored rows.
      [
        {
          type: 'CommunicationUpdated',
          stream: stream(c),
          data: fields(c, { user_id: bob, acted_date: '2026-04-11' }),
        },
      ],
    );
    await scenario.thenRows('visit_tenant_daily_rollups', [
      {
        acted_date: day('2026-04-10'),
        communication_type: 'visit',
        visit_count: 2,
        doctor_interview_count: 1,
        next_action_count: 1,
      },
      {
        acted_date: day('2026-04-11'),
        communication_type: 'visit',
        visit_count: 1,
        doctor_interview_count: 0,
        next_action_count: 0,
      },
    ]);
    await scenario.thenRows('visit_tenant_monthly_rollups', [
      {
        month: day('2026-04-01'),
        communication_type: 'visit',
        visit_count: 3,
        doctor_interview_count: 1,
        next_action_count: 1,
      },
    ]);
  });

  it('a visit that stops being one leaves no rollup row behind', async () => {
    const a = randomUUID();
    await test
      .given(
        [{ type: 'CommunicationCreated', stream: stream(a), data: { ...fields(a), tasks: [] } }],
        [{ type: 'CommunicationUpdated', stream: stream(a), data: fields(a, { communication_type: 'email' }) }],
      )
      .thenRows('visit_monthly_rollups', []);
    await test
      .given(
        [{ type: 'CommunicationCreated', stream: stream(a), data: { ...fields(a), tasks: [] } }],
        [
          {
            type: 'CommunicationDeleted',
            stream: stream(a),
            data: { communication_id: a, medical_institution_id: institution },
          },
        ],
      )
      .thenRows('visit_tenant_daily_rollups', []);
    await test
      .given(
        [{ type: 'CommunicationCreated', stream: stream(a), data: { ...fields(a), tasks: [] } }],
        [{ type: 'CommunicationUpdated', stream: stream(a), data: fields(a, { communication_type: 'phone' }) }],
      )
      .thenRows('visit_tenant_monthly_rollups', []);
  });

  it('counts the visits of an import chunk, and their later edits and deletes through their adopted streams', async () => {
    const [a, b, c, importId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const records = [fields(a), fields(b, { is_doctor_attended: true }), fields(c, { communication_type: 'phone' })];
    const adopted = (f: ReturnType<typeof fields>) => ({
      type: 'CommunicationImportAdopted',
      stream: stream(f.communication_id),
      data: { ...f, import_id: importId, imported_at: '2026-04-11T00:00:00.000Z' },
    });
    const scenario = test.given(
      [
        {
          type: 'CommunicationsImported',
          stream: `communication_import_rows-${randomUUID()}`,
          data: { import_id: importId, records },
        },
      ],
      [
        adopted(records[0]!),
        { type: 'CommunicationUpdated', stream: stream(a), data: fields(a, { acted_date: '2026-04-12' }) },
        adopted(records[1]!),
        {
          type: 'CommunicationDeleted',
          stream: stream(b),
          data: { communication_id: b, medical_institution_id: institution },
        },
      ],
    );
    await scenario.thenRows('visit_sources', [{ communication_id: a, acted_date: day('2026-04-12'), revision: 1 }]);
    await scenario.thenRows('visit_daily_rollups', [
      {
        acted_date: day('2026-04-12'),
        user_id: alice,
        communication_type: 'visit',
        visit_count: 1,
        doctor_interview_count: 0,
        next_action_count: 0,
      },
    ]);
  });
});
