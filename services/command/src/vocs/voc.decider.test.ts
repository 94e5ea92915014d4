import { describe, it } from 'vitest';
import { VocInput } from '@renkei/contracts';
import type { VocFields } from '@renkei/domain';
import { invalid, notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { vocDecider, type VocFacts } from './voc.decider.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const [vocId, staff, caller, institution, otherInstitution, group, visit, call] = [1, 2, 3, 4, 5, 6, 7, 8].map(id) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const facts: VocFacts = {
  institutionExists: true,
  accountIds: new Set([staff, caller]),
  groupIds: new Set([group]),
  communications: new Map([
    [visit, { medical_institution_id: institution }],
    [call, { medical_institution_id: otherInstitution }],
  ]),
};
const input = VocInput.parse({
  medical_institution_id: institution,
  title: '紹介状の返書が遅い',
  reported_date: '2026-04-01',
  voc_group_id: group,
  communication_ids: [visit],
});
const created: VocFields = {
  voc_id: vocId,
  medical_institution_id: institution,
  title: '紹介状の返書が遅い',
  reported_date: '2026-04-01',
  status: 'NOT_STARTED',
  priority: 'MIDDLE',
  detail_text: '',
  action_text: '',
  user_id: caller,
  voc_group_id: group,
  communication_ids: [visit],
};

describe('voc decider', () => {
  it('creates a VOC heard by the caller unless it names the staff member', () => {
    given(vocDecider)
      .when({ type: 'CreateVoc', vocId: vocId, callerId: caller, input, facts })
      .then([{ type: 'VocCreated', data: created }]);
    given(vocDecider)
      .when({ type: 'CreateVoc', vocId: vocId, callerId: caller, input: { ...input, user_id: staff }, facts })
      .then([{ type: 'VocCreated', data: { ...created, user_id: staff } }]);
  });

  it('refuses unknown staff, groups, communications and communications of another institution', () => {
    given(vocDecider)
      .when({
        type: 'CreateVoc',
        vocId: vocId,
        callerId: caller,
        input: { ...input, user_id: id(90), voc_group_id: id(91), communication_ids: [id(92), call] },
        facts: { ...facts, institutionExists: false },
      })
      .thenRejected(
        invalid(
          { field: 'medical_institution_id', message: '医療機関が見つかりません' },
          { field: 'user_id', message: '担当者が見つかりません' },
          { field: 'voc_group_id', message: 'VOCグループが見つかりません' },
          { field: 'communication_ids.0', message: '活動記録が見つかりません' },
          { field: 'communication_ids.1', message: '別の医療機関の活動記録は紐づけられません' },
        ),
      );
  });

  it('updates keeping who heard it; an unchanged save decides nothing; a deleted VOC is not found', () => {
    const done = { ...input, status: 'COMPLETED' as const, action_text: '返書を週内に' };
    given(vocDecider, [{ type: 'VocCreated', data: created }])
      .when({ type: 'UpdateVoc', vocId: vocId, callerId: staff, input: done, facts })
      .then([{ type: 'VocUpdated', data: { ...created, status: 'COMPLETED', action_text: '返書を週内に' } }]);
    given(vocDecider, [{ type: 'VocCreated', data: created }])
      .when({ type: 'UpdateVoc', vocId: vocId, callerId: staff, input, facts })
      .then([]);
    const deleted = [
      { type: 'VocCreated', data: created },
      { type: 'VocDeleted', data: { voc_id: vocId, medical_institution_id: institution } },
    ];
    // Another tenant's (or a deleted) VOC is not found, whatever its input says.
    given(vocDecider, deleted)
      .when({ type: 'UpdateVoc', vocId: vocId, callerId: staff, input, facts: { ...facts, institutionExists: false } })
      .thenRejected(notFound());
    given(vocDecider, deleted).when({ type: 'DeleteVoc', vocId: vocId }).thenRejected(notFound());
    given(vocDecider).when({ type: 'DeleteVoc', vocId: vocId }).thenRejected(notFound());
  });

  it('keeps who heard it on an edit by someone else that names nobody (the route looked up only the editor)', () => {
    const editorOnly = { ...facts, accountIds: new Set([staff]) };
    given(vocDecider, [{ type: 'VocCreated', data: created }])
      .when({ type: 'UpdateVoc', vocId, callerId: staff, input: { ...input, title: '返書が遅い' }, facts: editorOnly })
      .then([{ type: 'VocUpdated', data: { ...created, title: '返書が遅い' } }]);
    given(vocDecider, [{ type: 'VocCreated', data: created }])
      .when({ type: 'UpdateVoc', vocId, callerId: staff, input: { ...input, user_id: id(90) }, facts: editorOnly })
      .thenRejected(invalid({ field: 'user_id', message: '担当者が見つかりません' }));
  });

  it('links and unlinks a communication from its side, once', () => {
    given(vocDecider, [{ type: 'VocCreated', data: created }])
      .when({ type: 'LinkCommunication', vocId: vocId, communicationId: id(20), linked: true })
      .then([{ type: 'VocCommunicationsChanged', data: { voc_id: vocId, communication_ids: [visit, id(20)] } }]);
    given(vocDecider, [{ type: 'VocCreated', data: created }])
      .when({ type: 'LinkCommunication', vocId: vocId, communicationId: visit, linked: true })
      .then([]);
    given(vocDecider, [{ type: 'VocCreated', data: created }])
      .when({ type: 'LinkCommunication', vocId: vocId, communicationId: visit, linked: false })
      .then([{ type: 'VocCommunicationsChanged', data: { voc_id: vocId, communication_ids: [] } }]);
    given(vocDecider)
      .when({ type: 'LinkCommunication', vocId: vocId, communicationId: visit, linked: true })
      .thenRejected(notFound());
  });
});
