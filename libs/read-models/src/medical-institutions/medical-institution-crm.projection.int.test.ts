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

  describe('label values imported a chunk at a time', () => {
    const value = (labelId: string, integer: number) => ({
      label_id: labelId,
      text_value: null,
      integer_value: integer,
      date_value: null,
      time_value: null,
      selection_id: null,
      selection_ids: [],
      own_department_id: null,
      area_id: null,
    });
    const labelCreated = (tenantId: string, labelId: string) =>
      event(tenantId, `medical_institution_label-${labelId}`, 'MedicalInstitutionLabelCreated', {
        label_id: labelId,
        name: '医師数',
        description: '',
        component_type: 'integer',
        selections: [],
        areas: [],
      });
    /** A chunk event as the import writes it: values carry only the fields they use. */
    const imported = (
      tenantId: string,
      importId: string,
      chunk: number,
      rows: { row: number; institution: string; labelId: string; value: number }[],
    ) =>
      event(tenantId, `medical_institution_label_value_import-${importId}`, 'MedicalInstitutionLabelValuesImported', {
        import_id: importId,
        chunk,
        imported_row_count: rows.length,
        failed_row_count: 0,
        errors: [],
        rows: rows.map((r) => ({
          row_number: r.row,
          medical_institution_id: r.institution,
          values: [{ label_id: r.labelId, integer_value: r.value }],
        })),
      });
    const changed = (tenantId: string, institution: string, values: object[], removed: string[] = []) =>
      event(tenantId, `medical_institution_crm-${tenantId}-${institution}`, 'MedicalInstitutionLabelValuesChanged', {
        medical_institution_id: institution,
        values,
        removed_label_ids: removed,
        // What the institution's own stream knew: nothing of the import.
        previous: [],
        import_id: null,
      });
    const valuesOf = (tenantId: string) =>
      rows<{ medical_institution_id: string; integer_value: number }>(sql`
        SELECT medical_institution_id, integer_value FROM ${sql.table(t.mi_label_values)}
         WHERE tenant_id = ${tenantId} ORDER BY integer_value`);
    const historyOf = (tenantId: string, institution: string) =>
      rows<{ summary: string; changes: { before: string | null; after: string | null }[] }>(sql`
        SELECT summary, changes FROM ${sql.table(t.mi_histories)}
         WHERE tenant_id = ${tenantId} AND medical_institution_id = ${institution}
         ORDER BY position_primary, position_secondary`);

    it('applies 20,000 rows in a fixed number of statements; a later row and a later chunk win', async () => {
      const tenantId = randomUUID();
      const labelId = randomUUID();
      const importId = randomUUID();
      const institutions = Array.from({ length: 5_000 }, () => randomUUID());
      // Four rows per institution over ten chunks: row n sets the value n.
      const all = Array.from({ length: 20_000 }, (_, i) => ({
        row: i + 1,
        institution: institutions[i % institutions.length]!,
        labelId,
        value: i + 1,
      }));
      await handle([labelCreated(tenantId, labelId)]);
      const chunks = Array.from({ length: 10 }, (_, c) =>
        imported(tenantId, importId, c, all.slice(c * 2_000, (c + 1) * 2_000)),
      );
      const statements = await handle(chunks);
      expect(statements).toBeLessThanOrEqual(12);
      const values = await valuesOf(tenantId);
      expect(values).toHaveLength(5_000);
      expect(values[0]).toEqual({ medical_institution_id: institutions[0], integer_value: 15_001 });
      expect(values.at(-1)).toEqual({ medical_institution_id: institutions.at(-1), integer_value: 20_000 });
      // One line per chunk that changed the institution, with the value before it and after it.
      expect((await historyOf(tenantId, institutions[0]!)).map((h) => h.changes)).toEqual(
        [null, '1', '5001', '10001'].map((before, k) => [
          { field: `label:${labelId}`, label: '医師数', before, after: String(k * 5_000 + 1) },
        ]),
      );
    });

    it('takes the value before from the read model: an import between two hand edits, clearing and setting back', async () => {
      const tenantId = randomUUID();
      const labelId = randomUUID();
      const [a, b] = [randomUUID(), randomUUID()];
      await handle([labelCreated(tenantId, labelId), changed(tenantId, a, [value(labelId, 1)])]);
      // One batch: the import sets 2, a hand edit sets 1 back; the next batch clears it by hand.
      await handle([
        imported(tenantId, randomUUID(), 0, [
          { row: 1, institution: a, labelId, value: 2 },
          { row: 2, institution: a, labelId, value: 3 },
          { row: 3, institution: b, labelId, value: 7 },
        ]),
        changed(tenantId, a, [value(labelId, 1)]),
      ]);
      expect(await valuesOf(tenantId)).toEqual([
        { medical_institution_id: a, integer_value: 1 },
        { medical_institution_id: b, integer_value: 7 },
      ]);
      await handle([changed(tenantId, b, [], [labelId])]);
      expect(await valuesOf(tenantId)).toEqual([{ medical_institution_id: a, integer_value: 1 }]);
      expect((await historyOf(tenantId, a)).map((h) => [h.summary, h.changes.map((c) => [c.before, c.after])])).toEqual(
        [
          ['ラベルの値を変更', [[null, '1']]],
          // Rows 1 and 2 of one chunk: one line, from before the chunk to its last row.
          ['ラベルの値をインポートで変更', [['1', '3']]],
          ['ラベルの値を変更', [['3', '1']]],
        ],
      );
      expect((await historyOf(tenantId, b)).map((h) => h.changes.map((c) => [c.before, c.after]))).toEqual([
        [[null, '7']],
        [['7', null]],
      ]);
    });

    it('records no history line for rows or edits that change nothing', async () => {
      const tenantId = randomUUID();
      const labelId = randomUUID();
      const a = randomUUID();
      await handle([labelCreated(tenantId, labelId), changed(tenantId, a, [value(labelId, 5)])]);
      await handle([imported(tenantId, randomUUID(), 0, [{ row: 1, institution: a, labelId, value: 5 }])]);
      await handle([changed(tenantId, a, [value(labelId, 5)]), changed(tenantId, randomUUID(), [], [labelId])]);
      expect(await historyOf(tenantId, a)).toHaveLength(1);
      expect(await valuesOf(tenantId)).toEqual([{ medical_institution_id: a, integer_value: 5 }]);
    });
  });
});
