import { describe, it } from 'vitest';
import type { ActionListEvent } from '@renkei/domain';
import { invalid, notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { actionListDecider, maxActionListItems } from './action-list.decider.ts';

const actionListId = '0f8fad5b-d9cb-469f-a165-70867728950e';
const a = '11111111-1111-4111-8111-111111111111';
const b = '22222222-2222-4222-8222-222222222222';
const c = '33333333-3333-4333-8333-333333333333';
const unknown = '44444444-4444-4444-8444-444444444444';
const known = new Set([a, b, c]);

const created: ActionListEvent = {
  type: 'ActionListCreated',
  data: { action_list_id: actionListId, name: '挨拶回り' },
};
const added = (...ids: string[]): ActionListEvent => ({
  type: 'ActionListItemsAdded',
  data: { action_list_id: actionListId, medical_institution_ids: ids },
});
const marked = (status: 'actioned' | 'not_actioned', ...ids: string[]): ActionListEvent => ({
  type: 'ActionListItemsStatusChanged',
  data: { action_list_id: actionListId, medical_institution_ids: ids, status },
});
const deleted: ActionListEvent = { type: 'ActionListDeleted', data: { action_list_id: actionListId } };

describe('action list decider', () => {
  it('creates an empty list', () => {
    given(actionListDecider, [])
      .when({
        type: 'CreateActionList',
        actionListId,
        name: '挨拶回り',
        institutionIds: [],
        knownInstitutionIds: known,
      })
      .then([created]);
  });

  it('creates a list with its first institutions, each once', () => {
    given(actionListDecider, [])
      .when({
        type: 'CreateActionList',
        actionListId,
        name: '挨拶回り',
        institutionIds: [a, b, a],
        knownInstitutionIds: known,
      })
      .then([created, added(a, b)]);
  });

  it('refuses unknown institutions by their position in the body', () => {
    given(actionListDecider, [])
      .when({
        type: 'CreateActionList',
        actionListId,
        name: '挨拶回り',
        institutionIds: [a, unknown],
        knownInstitutionIds: known,
      })
      .thenRejected(invalid({ field: 'medical_institution_ids.1', message: '医療機関が見つかりません' }));
  });

  it('refuses to create the same list twice', () => {
    given(actionListDecider, [created])
      .when({ type: 'CreateActionList', actionListId, name: 'x', institutionIds: [], knownInstitutionIds: known })
      .thenRejected(invalid({ field: 'id', message: 'このアクションリストは既に登録されています。' }));
  });

  it('renames, and records nothing for the same name', () => {
    given(actionListDecider, [created])
      .when({ type: 'RenameActionList', actionListId, name: '年末挨拶' })
      .then([{ type: 'ActionListRenamed', data: { action_list_id: actionListId, name: '年末挨拶' } }]);
    given(actionListDecider, [created]).when({ type: 'RenameActionList', actionListId, name: '挨拶回り' }).then([]);
  });

  it('changes the list status only when it differs', () => {
    given(actionListDecider, [created])
      .when({ type: 'ChangeActionListStatus', actionListId, status: 'completed' })
      .then([{ type: 'ActionListStatusChanged', data: { action_list_id: actionListId, status: 'completed' } }]);
    given(actionListDecider, [created])
      .when({ type: 'ChangeActionListStatus', actionListId, status: 'in_progress' })
      .then([]);
  });

  it('adds only institutions not yet on the list', () => {
    given(actionListDecider, [created, added(a)])
      .when({
        type: 'AddActionListItems',
        actionListId,
        single: false,
        institutionIds: [a, b, c, b],
        knownInstitutionIds: known,
      })
      .then([added(b, c)]);
  });

  it('records nothing when every institution is already there', () => {
    given(actionListDecider, [created, added(a, b)])
      .when({
        type: 'AddActionListItems',
        actionListId,
        single: false,
        institutionIds: [b, a],
        knownInstitutionIds: known,
      })
      .then([]);
  });

  it('refuses a single institution that is already on the list or unknown', () => {
    given(actionListDecider, [created, added(a)])
      .when({ type: 'AddActionListItems', actionListId, single: true, institutionIds: [a], knownInstitutionIds: known })
      .thenRejected(
        invalid({ field: 'medical_institution_id', message: 'この医療機関は既にアクションリストに含まれています' }),
      );
    given(actionListDecider, [created])
      .when({
        type: 'AddActionListItems',
        actionListId,
        single: true,
        institutionIds: [unknown],
        knownInstitutionIds: known,
      })
      .thenRejected(invalid({ field: 'medical_institution_id', message: '医療機関が見つかりません' }));
  });

  it(`refuses to grow a list past ${maxActionListItems} institutions`, () => {
    const many = Array.from(
      { length: maxActionListItems },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    );
    given(actionListDecider, [created, added(...many)])
      .when({
        type: 'AddActionListItems',
        actionListId,
        single: false,
        institutionIds: [a, ...many.slice(0, 3)],
        knownInstitutionIds: new Set([a, ...many]),
      })
      .thenRejected(
        invalid({
          field: 'medical_institution_ids',
          message: `アクションリストに登録できる医療機関は${maxActionListItems}件までです（登録済み${maxActionListItems}件、追加1件）`,
        }),
      );
  });

  it('removes only institutions on the list', () => {
    given(actionListDecider, [created, added(a, b)])
      .when({ type: 'RemoveActionListItems', actionListId, institutionIds: [b, c, b] })
      .then([{ type: 'ActionListItemsRemoved', data: { action_list_id: actionListId, medical_institution_ids: [b] } }]);
    given(actionListDecider, [created, added(a)])
      .when({ type: 'RemoveActionListItems', actionListId, institutionIds: [c] })
      .then([]);
  });

  it('marks only items whose status changes', () => {
    given(actionListDecider, [created, added(a, b, c), marked('actioned', a)])
      .when({ type: 'ChangeActionListItemsStatus', actionListId, institutionIds: [a, b, unknown], status: 'actioned' })
      .then([marked('actioned', b)]);
    given(actionListDecider, [created, added(a, b), marked('actioned', a)])
      .when({ type: 'ChangeActionListItemsStatus', actionListId, institutionIds: [a, b], status: 'not_actioned' })
      .then([marked('not_actioned', a)]);
  });

  it('adds a removed institution back as not actioned', () => {
    given(actionListDecider, [
      created,
      added(a),
      marked('actioned', a),
      { type: 'ActionListItemsRemoved', data: { action_list_id: actionListId, medical_institution_ids: [a] } },
      added(a),
    ])
      .when({ type: 'ChangeActionListItemsStatus', actionListId, institutionIds: [a], status: 'not_actioned' })
      .then([]);
  });

  it('deletes a list; a deleted or missing list is not found', () => {
    given(actionListDecider, [created]).when({ type: 'DeleteActionList', actionListId }).then([deleted]);
    given(actionListDecider, [created, deleted])
      .when({ type: 'DeleteActionList', actionListId })
      .thenRejected(notFound());
    given(actionListDecider, [created, deleted])
      .when({ type: 'RenameActionList', actionListId, name: 'x' })
      .thenRejected(notFound());
    given(actionListDecider, [])
      .when({ type: 'RemoveActionListItems', actionListId, institutionIds: [a] })
      .thenRejected(notFound());
  });
});
