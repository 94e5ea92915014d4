import type { AlertConditionInput, FieldError } from '@renkei/contracts';
import { parseAlertConditionEvent, type AlertConditionCreated } from '@renkei/domain';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';

export type AlertConditionEvent = ReturnType<typeof parseAlertConditionEvent>;

export interface AlertConditionState {
  status: 'absent' | 'active' | 'deleted';
  fields: AlertConditionCreated | null;
}

/** What the input's ids are checked against (read by the route from the tenant's streams and the master). */
export interface AlertConditionFacts {
  /** Live tags of the tenant among those the input names. */
  tagIds: ReadonlySet<string>;
  /** Areas of the tenant's live area labels. */
  areaIds: ReadonlySet<string>;
  /** The master's facility type and department codes, as numbers in text (`"11"`, `"1"`): codes compare by value. */
  facilityTypeIds: ReadonlySet<string>;
  departmentIds: ReadonlySet<string>;
}

export type AlertConditionCommand =
  | { type: 'CreateAlertCondition'; conditionId: string; input: AlertConditionInput; facts: AlertConditionFacts }
  | { type: 'DeleteAlertCondition'; conditionId: string };

function evolve(state: AlertConditionState, event: AlertConditionEvent): AlertConditionState {
  switch (event.type) {
    case 'AlertConditionCreated':
      return { status: 'active', fields: event.data };
    case 'AlertConditionDeleted':
      return { ...state, status: 'deleted' };
    default: {
      const never: never = event;
      return never;
    }
  }
}

const referralTriggers = [
  'referral_change_count',
  'referral_change_rate',
  'referral_count',
  'referral_average',
] as const;

function unknownIds(
  ids: readonly string[],
  known: ReadonlySet<string>,
  field: string,
  message: string,
  key: (id: string) => string = (id) => id,
): FieldError[] {
  return ids.flatMap((id, i) => (known.has(key(id)) ? [] : [{ field: `${field}.${i}`, message }]));
}

/** A master code as its number (`"01"` and `"1"` name one department); anything else is unknown. */
const codeKey = (code: string) => (/^\d+$/.test(code) ? String(Number(code)) : code);

const unique = (ids: readonly string[]) => [...new Set(ids)];

/**
 * A condition of type `referral` watches referral figures and needs one of their triggers; one of type
 * `communication` watches visits and needs the days without a visit (it may add referral triggers).
 * Every id the filters name must exist now: a tag or area deleted later makes the condition
 * `has_invalid` (read side) and it stops running, it is not refused after the fact.
 */
function check(input: AlertConditionInput, facts: AlertConditionFacts): FieldError[] {
  const errors: FieldError[] = [];
  if (input.type === 'referral' && !referralTriggers.some((k) => input.triggers[k] !== null))
    errors.push({ field: 'triggers', message: '紹介の条件を1つ以上設定してください' });
  if (input.type === 'communication' && input.triggers.communication_visit === null)
    errors.push({ field: 'triggers.communication_visit', message: '訪問していない日数を入力してください' });
  const f = input.filters;
  if (f.area !== null && !facts.areaIds.has(f.area))
    errors.push({ field: 'filters.area', message: 'エリアが見つかりません' });
  errors.push(
    ...unknownIds(f.tag_ids, facts.tagIds, 'filters.tag_ids', 'タグが見つかりません'),
    ...unknownIds(
      f.facility_type_ids,
      facts.facilityTypeIds,
      'filters.facility_type_ids',
      '施設種別が見つかりません',
      codeKey,
    ),
    ...unknownIds(f.department_ids, facts.departmentIds, 'filters.department_ids', '診療科が見つかりません', codeKey),
  );
  return errors;
}

function decide(state: AlertConditionState, command: AlertConditionCommand): Decision<AlertConditionEvent> {
  switch (command.type) {
    case 'CreateAlertCondition': {
      if (state.status !== 'absent') return invalid({ field: 'id', message: 'このアラート条件は既に登録されています' });
      const errors = check(command.input, command.facts);
      if (errors.length > 0) return invalid(...errors);
      const { filters } = command.input;
      return [
        {
          type: 'AlertConditionCreated',
          data: {
            condition_id: command.conditionId,
            name: command.input.name,
            type: command.input.type,
            triggers: command.input.triggers,
            filters: {
              ...filters,
              facility_type_ids: unique(filters.facility_type_ids),
              department_ids: unique(filters.department_ids),
              tag_ids: unique(filters.tag_ids),
            },
          },
        },
      ];
    }
    case 'DeleteAlertCondition':
      if (state.status !== 'active') return notFound();
      return [{ type: 'AlertConditionDeleted', data: { condition_id: command.conditionId } }];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const alertConditionDecider: Decider<AlertConditionState, AlertConditionCommand, AlertConditionEvent> = {
  initialState: () => ({ status: 'absent', fields: null }),
  evolve,
  decide,
  parse: parseAlertConditionEvent,
};
