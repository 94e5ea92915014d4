import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { projectionTest } from '@renkei/projections/testing';
import { actionListsProjection } from './action-lists.projection.ts';

const test = projectionTest(actionListsProjection);

describe('action lists projection', () => {
  it('keeps lists with their counts and items with their status, across batches', async () => {
    const [list, gone] = [randomUUID(), randomUUID()];
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const [creator, marker] = [randomUUID(), randomUUID()];
    const on = (id: string) => ({ stream: `action_list-${id}` });
    const scenario = test.given(
      [
        {
          type: 'ActionListCreated',
          ...on(list),
          accountId: creator,
          data: { action_list_id: list, name: '挨拶回り' },
        },
        {
          type: 'ActionListItemsAdded',
          ...on(list),
          accountId: creator,
          data: { action_list_id: list, medical_institution_ids: [a, b, c] },
        },
        {
          type: 'ActionListItemsStatusChanged',
          ...on(list),
          accountId: marker,
          data: { action_list_id: list, medical_institution_ids: [a], status: 'actioned' },
        },
        { type: 'ActionListCreated', ...on(gone), data: { action_list_id: gone, name: '消すリスト' } },
        { type: 'ActionListItemsAdded', ...on(gone), data: { action_list_id: gone, medical_institution_ids: [a] } },
      ],
      [
        { type: 'ActionListRenamed', ...on(list), data: { action_list_id: list, name: '年末挨拶' } },
        {
          type: 'ActionListItemsStatusChanged',
          ...on(list),
          accountId: marker,
          data: { action_list_id: list, medical_institution_ids: [b], status: 'actioned' },
        },
        { type: 'ActionListItemsRemoved', ...on(list), data: { action_list_id: list, medical_institution_ids: [c] } },
        { type: 'ActionListStatusChanged', ...on(list), data: { action_list_id: list, status: 'completed' } },
        { type: 'ActionListDeleted', ...on(gone), data: { action_list_id: gone } },
      ],
    );
    await scenario.thenRows('action_lists', [
      {
        tenant_id: test.tenantId,
        id: list,
        name: '年末挨拶',
        status: 'completed',
        medical_institution_count: 2,
        actioned_count: 2,
        created_by: creator,
        version: 6,
      },
    ]);
    await scenario.thenRows('action_list_items', [
      { action_list_id: list, medical_institution_id: a, status: 'actioned', updated_by: marker, revision: 2 },
      { action_list_id: list, medical_institution_id: b, status: 'actioned', updated_by: marker, revision: 4 },
    ]);
  });

  it('puts a removed institution back as not actioned, within one batch', async () => {
    const list = randomUUID();
    const a = randomUUID();
    const on = { stream: `action_list-${list}` };
    await test
      .given([
        { type: 'ActionListCreated', ...on, data: { action_list_id: list, name: 'リスト' } },
        { type: 'ActionListItemsAdded', ...on, data: { action_list_id: list, medical_institution_ids: [a] } },
        {
          type: 'ActionListItemsStatusChanged',
          ...on,
          data: { action_list_id: list, medical_institution_ids: [a], status: 'actioned' },
        },
        { type: 'ActionListItemsRemoved', ...on, data: { action_list_id: list, medical_institution_ids: [a] } },
        { type: 'ActionListItemsAdded', ...on, data: { action_list_id: list, medical_institution_ids: [a] } },
      ])
      .thenRows('action_list_items', [{ action_list_id: list, medical_institution_id: a, status: 'not_actioned' }]);
  });

  it('refuses an event it cannot read', async () => {
    await test.given([{ type: 'ActionListCreated', data: { action_list_id: 'not-a-uuid', name: 'x' } }]).thenFails(/./);
  });
});
