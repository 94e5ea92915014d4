import { describe, it } from 'vitest';
import { invalid } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { ownDepartmentsDecider, phaseMastersDecider } from './phase-master.decider.ts';

const t = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const ids = () => {
  let n = 100;
  return () => t(n++);
};
const replaced = {
  type: 'PhaseMastersReplaced' as const,
  data: { phase_masters: [{ id: t(1), name: '訪問済', description: '' }] },
};

describe('phase masters', () => {
  it('keeps known ids and gives new rows (and unknown ids) new ones', () => {
    given(phaseMastersDecider, [replaced])
      .when({
        phaseMasters: [
          { name: '新規', description: 'x' },
          { id: t(1), name: '訪問済み', description: '' },
          { id: t(9), name: '他', description: '' },
        ],
        newId: ids(),
      })
      .then([
        {
          type: 'PhaseMastersReplaced',
          data: {
            phase_masters: [
              { id: t(100), name: '新規', description: 'x' },
              { id: t(1), name: '訪問済み', description: '' },
              { id: t(101), name: '他', description: '' },
            ],
          },
        },
      ]);
  });

  it('refuses two rows with one name (after NFKC) or one id', () => {
    given(phaseMastersDecider, [replaced])
      .when({
        phaseMasters: [
          { id: t(1), name: 'ＡＢ', description: '' },
          { id: t(1), name: ' AB', description: '' },
        ],
        newId: ids(),
      })
      .thenRejected(
        invalid(
          { field: 'phase_masters.1.name', message: '「 AB」が重複しています' },
          { field: 'phase_masters.1.id', message: '「 AB」のIDが他の行と重複しています' },
        ),
      );
  });
});

describe('own departments', () => {
  it('replaces the whole list', () => {
    given(ownDepartmentsDecider)
      .when({ ownDepartments: [{ name: '内科', department_id: '01' }], newId: ids() })
      .then([
        {
          type: 'OwnDepartmentsReplaced',
          data: { own_departments: [{ id: t(100), name: '内科', department_id: '01' }] },
        },
      ]);
  });
});
