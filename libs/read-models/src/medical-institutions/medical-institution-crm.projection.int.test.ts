import { randomUUID } from 'node:crypto';
import { sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import type { RecordedEvent } from '@renkei/event-store';
import { physicalTables } from '@renkei/projections';
import { medicalInstitutionCrmProjection as projection } from './medical-institution-crm.projection.ts';

let db: TestDatabase;
let position = 0n;
const revisions = new Map<string, number>();
const t = physicalTables(projection, 'test');

function event(tenantId: string, stream: string, type: string, data: object): RecordedEvent {
  const revision = (revisions.get(stream) ?? -1) + 1;
  revisions.set(stream, revision);
  position += 1n;
  return {
    id: randomUUID(),
    stream,
    revision,
    position: { primary: position, secondary: position },
    type,
    data,
    metadata: {
      tenant_id: tenantId,
      account_id: null,
      correlation_id: randomUUID(),
      causation_id: null,
      schema_version: 1,
    },
    created_at: new Date(),
  };
}
const tagsChanged = (tenantId: string, institutionId: string, added: string[], removed: string[] = []) =>
  event(tenantId, `medical_institution_crm-${tenantId}-${institutionId}`, 'MedicalInstitutionTagsChanged', {
    medical_institution_id: institutionId,
    tag_ids: added,
    added_tag_ids: added,
    removed_tag_ids: removed,
  });

/** Applies one batch and returns how many statements it sent. */
async function handle(events: RecordedEvent[]): Promise<number> {
  let statements = 0;
  const counter: KyselyPlugin = {
    transformQuery: (args) => {
      statements += 1;
      return args.node;
    },
    transformResult: async (args) => args.result,
  };
  await db.kysely.transaction().execute((trx) => projection.handle(trx.withPlugin(counter), events, t));
  return statements;
}
const rows = async <R>(query: ReturnType<typeof sql<R>>) => (await query.execute(db.kysely)).rows;
const tagsOf = async (tenantId: string) =>
  rows<{ medical_institution_id: string; tag_id: string }>(
    sql`SELECT medical_institution_id, tag_id FROM ${sql.table(t.mi_tags)} WHERE tenant_id = ${tenantId}`,
  );

beforeAll(async () => {
  db = await createTestDatabase();
  await sql`CREATE SCHEMA IF NOT EXISTS rm`.execute(db.kysely);
  await db.kysely.transaction().execute((trx) => projection.setup(trx, t));
});
afterAll(async () => {
  await db?.close();
});

describe('medical_institution_crm projection', () => {
  it('writes a batch of 20,000 institutions with a fixed number of statements', async () => {
    const tenantId = randomUUID();
    const tagId = randomUUID();
    const labelId = randomUUID();
    const institutions = Array.from({ length: 20_000 }, () => randomUUID());
    const events = [
      event(tenantId, `medical_institution_label-${labelId}`, 'MedicalInstitutionLabelCreated', {
        label_id: labelId,
        name: '病床数区分',
        description: '',
        component_type: 'text',
        selections: [],
        areas: [],
      }),
      ...institutions.flatMap((id, i) => [
        tagsChanged(tenantId, id, [tagId]),
        event(tenantId, `medical_institution_memo-${id}`, 'MedicalInstitutionMemoChanged', {
          medical_institution_id: id,
          content: `メモ${i}`,
          previous_content: '',
        }),
        event(tenantId, `medical_institution_crm-${tenantId}-${id}`, 'MedicalInstitutionLabelValuesChanged', {
          medical_institution_id: id,
          values: [
            {
              label_id: labelId,
              text_value: `値${i}`,
              integer_value: null,
              date_value: null,
              time_value: null,
              selection_id: null,
              selection_ids: [],
              own_department_id: null,
              area_id: null,
            },
          ],
          removed_label_ids: [],
          previous: [],
          import_id: null,
        }),
      ]),
    ];
    const statements = await handle(events);
    // v1 sent at least one statement per event (60,001 here).
    expect(statements).toBeGreaterThan(0);
    expect(statements).toBeLessThanOrEqual(12);
    expect(await tagsOf(tenantId)).toHaveLength(20_000);
    const [counts] = await rows<{ notes: number; values: number; histories: number }>(sql`
      SELECT (SELECT count(*)::int FROM ${sql.table(t.mi_notes)} WHERE tenant_id = ${tenantId}) AS notes,
             (SELECT count(*)::int FROM ${sql.table(t.mi_label_values)} WHERE tenant_id = ${tenantId}) AS values,
             (SELECT count(*)::int FROM ${sql.table(t.mi_histories)} WHERE tenant_id = ${tenantId}) AS histories`);
    expect(counts).toEqual({ notes: 20_000, values: 20_000, histories: 60_000 });
    const [history] = await rows<{ changes: { label: string; after: string }[] }>(sql`
      SELECT changes FROM ${sql.table(t.mi_histories)}
       WHERE tenant_id = ${tenantId} AND medical_institution_id = ${institutions[7]!} AND kind = 'label_values_changed'`);
    expect(history!.changes[0]).toMatchObject({ label: '病床数区分', after: '値7' });
  });

  it('folds a batch in event order: last write wins, deletions apply to earlier events of the batch', async () => {
    const tenantId = randomUUID();
    const [a, b] = [randomUUID(), randomUUID()];
    const [kept, dropped] = [randomUUID(), randomUUID()];
    const doctorId = randomUUID();
    const doctor = {
      doctor_id: doctorId,
      medical_institution_id: a,
      division: '内科',
      position: '',
      honorific: '先生',
    };
    const more = { email: null, phone_number: null, profile: '', memo: '' };
    const [master1, master2] = [randomUUID(), randomUUID()];
    await handle([
      event(tenantId, `doctor-${doctorId}`, 'DoctorAdded', { ...doctor, name: '佐藤 一郎', ...more }),
      event(tenantId, `phase_masters-${tenantId}`, 'PhaseMastersReplaced', {
        phase_masters: [
          { id: master1, name: '訪問予定', description: '' },
          { id: master2, name: '紹介あり', description: '' },
        ],
      }),
      event(tenantId, `medical_institution_crm-${tenantId}-${b}`, 'MedicalInstitutionPhaseChanged', {
        medical_institution_id: b,
        phase_master_id: master1,
        phase_name: '訪問予定',
        previous_phase_master_id: null,
        previous_phase_name: null,
      }),
    ]);
    await handle([
      tagsChanged(tenantId, a, [kept, dropped]),
      tagsChanged(tenantId, b, [dropped]),
      tagsChanged(tenantId, b, [kept], [dropped]),
      event(tenantId, `doctor-${doctorId}`, 'DoctorUpdated', { ...doctor, name: '佐藤 二郎', ...more }),
      event(tenantId, `doctor-${doctorId}`, 'DoctorUpdated', { ...doctor, name: '佐藤 三郎', ...more }),
      event(tenantId, `medical_institution_crm-${tenantId}-${a}`, 'MedicalInstitutionPhaseChanged', {
        medical_institution_id: a,
        phase_master_id: master1,
        phase_name: '訪問予定',
        previous_phase_master_id: null,
        previous_phase_name: null,
      }),
      event(tenantId, `phase_masters-${tenantId}`, 'PhaseMastersReplaced', {
        phase_masters: [{ id: master2, name: '紹介あり', description: '' }],
      }),
    ]);
    const tags = await tagsOf(tenantId);
    expect(tags).toHaveLength(3);
    expect(tags.filter((r) => r.medical_institution_id === b).map((r) => r.tag_id)).toEqual([kept]);
    const [row] = await rows<{ name: string }>(sql`SELECT name FROM ${sql.table(t.mi_doctors)} WHERE id = ${doctorId}`);
    expect(row!.name).toBe('佐藤 三郎');
    const changes = await rows<{ changes: { field: string; before: string; after: string }[] }>(sql`
      SELECT changes FROM ${sql.table(t.mi_histories)} WHERE tenant_id = ${tenantId} AND kind = 'doctor_changed'
       ORDER BY occurred_at, summary`);
    expect(changes.map((c) => c.changes.find((x) => x.field === 'name'))).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ before: '佐藤 一郎', after: '佐藤 二郎' }),
        expect.objectContaining({ before: '佐藤 二郎', after: '佐藤 三郎' }),
      ]),
    );
    // The replaced list dropped master1: both the phase stored earlier and the one set in this batch lose it.
    const phases = await rows<{ phase_master_id: string | null }>(
      sql`SELECT phase_master_id FROM ${sql.table(t.mi_phases)} WHERE tenant_id = ${tenantId}`,
    );
    expect(phases).toEqual([{ phase_master_id: null }, { phase_master_id: null }]);
  });

  it('removes a deleted tag from every institution of its tenant, also within the same batch', async () => {
    const [tenantId, otherTenant] = [randomUUID(), randomUUID()];
    const [deleted, kept] = [randomUUID(), randomUUID()];
    const institutions = [randomUUID(), randomUUID(), randomUUID()];
    await handle([
      ...institutions.map((id) => tagsChanged(tenantId, id, [deleted, kept])),
      tagsChanged(otherTenant, institutions[0]!, [deleted]),
    ]);
    expect(await tagsOf(tenantId)).toHaveLength(6);
    await handle([
      tagsChanged(tenantId, institutions[0]!, [], [kept]),
      event(tenantId, `tag-${deleted}`, 'TagDeleted', { tag_id: deleted }),
    ]);
    const left = await tagsOf(tenantId);
    expect(left.map((r) => r.tag_id).sort()).toEqual([kept, kept]);
    expect(await tagsOf(otherTenant)).toHaveLength(1);

    const fresh = randomUUID();
    await handle([
      tagsChanged(tenantId, institutions[1]!, [fresh]),
      event(tenantId, `tag-${fresh}`, 'TagDeleted', { tag_id: fresh }),
    ]);
    expect((await tagsOf(tenantId)).map((r) => r.tag_id)).not.toContain(fresh);
  });
});
