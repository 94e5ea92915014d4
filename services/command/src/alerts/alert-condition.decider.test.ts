import { describe, it } from 'vitest';
import { AlertConditionInput } from '@renkei/contracts';
import { invalid, notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { alertConditionDecider, type AlertConditionFacts } from './alert-condition.decider.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const facts: AlertConditionFacts = {
  tagIds: new Set([id(10)]),
  areaIds: new Set([id(20)]),
  facilityTypeIds: new Set(['11', '12']),
  departmentIds: new Set(['1']),
};
const input = (raw: object) => AlertConditionInput.parse(raw);
const decrease = input({
  name: '紹介減少',
  type: 'referral',
  triggers: { referral_change_rate: { direction: 'decrease', rate: 50 } },
  filters: { tag_ids: [id(10), id(10)] },
});
const created = {
  type: 'AlertConditionCreated',
  data: {
    condition_id: id(1),
    name: '紹介減少',
    type: 'referral',
    triggers: decrease.triggers,
    filters: decrease.filters,
  },
};

describe('alert condition decider', () => {
  it('creates a condition, naming each tag once', () => {
    given(alertConditionDecider)
      .when({ type: 'CreateAlertCondition', conditionId: id(1), input: decrease, facts })
      .then([
        {
          type: 'AlertConditionCreated',
          data: {
            condition_id: id(1),
            name: '紹介減少',
            type: 'referral',
            triggers: decrease.triggers,
            filters: { ...decrease.filters, tag_ids: [id(10)] },
          },
        },
      ]);
  });

  it('refuses unknown tags, areas, facility types and departments on their fields', () => {
    given(alertConditionDecider)
      .when({
        type: 'CreateAlertCondition',
        conditionId: id(1),
        input: input({
          name: 'x',
          type: 'referral',
          triggers: { referral_count: { comparison: 'lte', count: 0 } },
          filters: { tag_ids: [id(10), id(11)], area: id(21), facility_type_ids: ['9'], department_ids: ['01', '99'] },
        }),
        facts,
      })
      .thenRejected(
        invalid(
          { field: 'filters.area', message: 'エリアが見つかりません' },
          { field: 'filters.tag_ids.1', message: 'タグが見つかりません' },
          { field: 'filters.facility_type_ids.0', message: '施設種別が見つかりません' },
          { field: 'filters.department_ids.1', message: '診療科が見つかりません' },
        ),
      );
  });

  it('needs the triggers its type watches', () => {
    given(alertConditionDecider)
      .when({
        type: 'CreateAlertCondition',
        conditionId: id(1),
        input: input({ name: 'x', type: 'referral', triggers: { communication_visit: { days_without_visit: 90 } } }),
        facts,
      })
      .thenRejected(invalid({ field: 'triggers', message: '紹介の条件を1つ以上設定してください' }));
    given(alertConditionDecider)
      .when({
        type: 'CreateAlertCondition',
        conditionId: id(1),
        input: input({
          name: 'x',
          type: 'communication',
          triggers: { referral_count: { comparison: 'gte', count: 1 } },
        }),
        facts,
      })
      .thenRejected(
        invalid({ field: 'triggers.communication_visit', message: '訪問していない日数を入力してください' }),
      );
  });

  it('refuses a second create on the same id', () => {
    given(alertConditionDecider, [created])
      .when({ type: 'CreateAlertCondition', conditionId: id(1), input: decrease, facts })
      .thenRejected(invalid({ field: 'id', message: 'このアラート条件は既に登録されています' }));
  });

  it('deletes a live condition once; a missing or deleted one is not found', () => {
    given(alertConditionDecider, [created])
      .when({ type: 'DeleteAlertCondition', conditionId: id(1) })
      .then([{ type: 'AlertConditionDeleted', data: { condition_id: id(1) } }]);
    given(alertConditionDecider, [created, { type: 'AlertConditionDeleted', data: { condition_id: id(1) } }])
      .when({ type: 'DeleteAlertCondition', conditionId: id(1) })
      .thenRejected(notFound());
    given(alertConditionDecider)
      .when({ type: 'DeleteAlertCondition', conditionId: id(1) })
      .thenRejected(notFound());
  });
});
