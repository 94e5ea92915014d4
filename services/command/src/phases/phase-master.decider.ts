import type { FieldError } from '@renkei/contracts';
import {
  parseOwnDepartmentsEvent,
  parsePhaseMastersEvent,
  type OwnDepartmentsReplaced,
  type PhaseMastersReplaced,
} from '@renkei/domain';
import { invalid, type Decider, type Decision } from '../shared/decider.ts';

export type PhaseMastersEvent = ReturnType<typeof parsePhaseMastersEvent>;
export type OwnDepartmentsEvent = ReturnType<typeof parseOwnDepartmentsEvent>;
type PhaseMaster = PhaseMastersReplaced['phase_masters'][number];
type OwnDepartment = OwnDepartmentsReplaced['own_departments'][number];

/**
 * Keeps a known id (references stay valid), gives new entries a fresh one, refuses duplicates: of a
 * name, and of an id (two entries keeping one id would be two rows with one key in every read model).
 */
function assignIds<T extends { id?: string | undefined; name: string }>(
  items: readonly T[],
  known: ReadonlySet<string>,
  field: string,
  newId: () => string,
): { items: (T & { id: string })[]; errors: FieldError[] } {
  const names = new Set<string>();
  const ids = new Set<string>();
  const errors: FieldError[] = [];
  const out = items.map((item, i) => {
    const key = item.name.normalize('NFKC').trim();
    if (names.has(key)) errors.push({ field: `${field}.${i}.name`, message: `「${item.name}」が重複しています` });
    names.add(key);
    if (item.id && ids.has(item.id))
      errors.push({ field: `${field}.${i}.id`, message: `「${item.name}」のIDが他の行と重複しています` });
    if (item.id) ids.add(item.id);
    return { ...item, id: item.id && known.has(item.id) ? item.id : newId() };
  });
  return { items: out, errors };
}

export interface ReplacePhaseMasters {
  phaseMasters: readonly { id?: string | undefined; name: string; description: string }[];
  newId: () => string;
}

/** The tenant's phase masters: one stream per tenant holding the whole ordered list. */
export const phaseMastersDecider: Decider<PhaseMaster[], ReplacePhaseMasters, PhaseMastersEvent> = {
  initialState: () => [],
  evolve: (_list, event) => event.data.phase_masters,
  decide: (current, command): Decision<PhaseMastersEvent> => {
    const known = new Set(current.map((p) => p.id));
    const { items, errors } = assignIds(command.phaseMasters, known, 'phase_masters', command.newId);
    if (errors.length > 0) return invalid(...errors);
    const masters = items.map((p) => ({ id: p.id, name: p.name, description: p.description }));
    return [{ type: 'PhaseMastersReplaced', data: { phase_masters: masters } }];
  },
  parse: parsePhaseMastersEvent,
};

export interface ReplaceOwnDepartments {
  ownDepartments: readonly { id?: string | undefined; name: string; department_id: string | null }[];
  newId: () => string;
}

/** The tenant's own hospital departments: one stream per tenant holding the whole ordered list. */
export const ownDepartmentsDecider: Decider<OwnDepartment[], ReplaceOwnDepartments, OwnDepartmentsEvent> = {
  initialState: () => [],
  evolve: (_list, event) => event.data.own_departments,
  decide: (current, command): Decision<OwnDepartmentsEvent> => {
    const known = new Set(current.map((d) => d.id));
    const { items, errors } = assignIds(command.ownDepartments, known, 'own_departments', command.newId);
    if (errors.length > 0) return invalid(...errors);
    const departments = items.map((d) => ({ id: d.id, name: d.name, department_id: d.department_id }));
    return [{ type: 'OwnDepartmentsReplaced', data: { own_departments: departments } }];
  },
  parse: parseOwnDepartmentsEvent,
};
