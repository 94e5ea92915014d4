import { describe, expect, it } from 'vitest';
import { decideLabel, foldLabel } from './label.decider.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
let counter = 100;
const newId = () => id(counter++);
const input = (patch: object = {}) => ({
  name: '重点度',
  description: '',
  component_type: 'select' as const,
  selections: [{ label: 'A' }, { label: 'B' }],
  areas: [],
  ...patch,
});

describe('decideLabel', () => {
  it('creates a label with new choice ids in input order', () => {
    const events = decideLabel(foldLabel([]), id(1), input(), newId);
    expect(events).toMatchObject([
      {
        type: 'MedicalInstitutionLabelCreated',
        data: {
          selections: [
            { label: 'A', order: 0 },
            { label: 'B', order: 1 },
          ],
        },
      },
    ]);
  });

  it('keeps known choice ids, refuses a type change and records nothing for the same input', () => {
    const created = decideLabel(foldLabel([]), id(1), input(), newId) as {
      type: string;
      data: { selections: { id: string }[] };
    }[];
    const state = foldLabel(created);
    const a = created[0]!.data.selections[0]!.id;
    const updated = decideLabel(
      state,
      id(1),
      input({
        selections: [
          { id: a, label: 'A+' },
          { id: id(999), label: 'C' },
        ],
      }),
      newId,
    );
    expect(updated).toMatchObject([
      { type: 'MedicalInstitutionLabelUpdated', data: { selections: [{ id: a, label: 'A+' }, { label: 'C' }] } },
    ]);
    expect((updated as { data: { selections: { id: string }[] } }[])[0]!.data.selections[1]!.id).not.toBe(id(999));
    expect(decideLabel(state, id(1), input({ component_type: 'text' }), newId)).toEqual({
      field: 'component_type',
      message: expect.any(String),
    });
    const same = decideLabel(
      state,
      id(1),
      input({ selections: created[0]!.data.selections.map((s, i) => ({ id: s.id, label: ['A', 'B'][i] })) }),
      newId,
    );
    expect(same).toEqual([]);
  });
});
