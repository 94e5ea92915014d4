import { describe, expect, it } from 'vitest';
import { listVersion, ownDepartmentsVersion } from './list-version.ts';

describe('listVersion', () => {
  const list = [
    { id: 'a', name: '未接触', description: '' },
    { id: 'b', name: '定期訪問', description: '月1回' },
  ];

  it('is the same for the same list and changes with any name, description or the order', () => {
    expect(listVersion(list)).toBe(listVersion(list.map((p) => ({ ...p }))));
    expect(listVersion(list)).toMatch(/^l[0-9a-z]+$/);
    const versions = new Set([
      listVersion(list),
      listVersion([list[1]!, list[0]!]),
      listVersion([{ ...list[0]!, name: '未接触 ' }, list[1]!]),
      listVersion([list[0]!, { ...list[1]!, description: '月2回' }]),
      listVersion([list[0]!]),
      listVersion([]),
    ]);
    expect(versions.size).toBe(6);
  });

  it('treats a missing description as empty', () => {
    expect(listVersion([{ id: 'a', name: 'x' }])).toBe(listVersion([{ id: 'a', name: 'x', description: '' }]));
  });

  it('versions own departments by their department codes too', () => {
    const list = [{ id: 'a', name: '循環器内科', department_id: '01' as string | null }];
    expect(ownDepartmentsVersion(list)).toBe(ownDepartmentsVersion(list.map((d) => ({ ...d }))));
    expect(ownDepartmentsVersion(list)).not.toBe(ownDepartmentsVersion([{ ...list[0]!, department_id: '02' }]));
    expect(ownDepartmentsVersion(list)).not.toBe(ownDepartmentsVersion([{ ...list[0]!, department_id: null }]));
  });
});
