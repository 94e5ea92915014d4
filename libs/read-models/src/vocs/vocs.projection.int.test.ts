import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { projectionTest } from '@renkei/projections/testing';
import { vocsProjection } from './vocs.projection.ts';
import { blankVoc } from '@renkei/domain/testing';

const test = projectionTest(vocsProjection);

const fields = (id: string, institution: string, patch: Record<string, unknown> = {}) =>
  blankVoc({ voc_id: id, medical_institution_id: institution }, patch);

describe('vocs projection', () => {
  it('keeps each VOC at its revision, with links changed in a later batch, and drops a deleted one', async () => {
    const [a, b, institution, visit, call] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    const stream = (id: string) => `voc-${id}`;
    await test
      .given(
        [
          { type: 'VocCreated', stream: stream(a), data: fields(a, institution, { communication_ids: [visit] }) },
          { type: 'VocCreated', stream: stream(b), data: fields(b, institution) },
        ],
        [
          {
            type: 'VocCommunicationsChanged',
            stream: stream(a),
            data: { voc_id: a, communication_ids: [visit, call] },
          },
          { type: 'VocUpdated', stream: stream(b), data: fields(b, institution, { status: 'COMPLETED' }) },
          { type: 'VocDeleted', stream: stream(b), data: { voc_id: b, medical_institution_id: institution } },
        ],
      )
      .thenRows('vocs', [
        { tenant_id: test.tenantId, id: a, status: 'NOT_STARTED', communication_ids: [visit, call], version: 1 },
      ]);
  });

  it('folds an update and a link change of one batch into one row', async () => {
    const [a, institution, visit, group] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
    await test
      .given([
        { type: 'VocCreated', stream: `voc-${a}`, data: fields(a, institution) },
        {
          type: 'VocUpdated',
          stream: `voc-${a}`,
          data: fields(a, institution, { priority: 'HIGH', voc_group_id: group }),
        },
        { type: 'VocCommunicationsChanged', stream: `voc-${a}`, data: { voc_id: a, communication_ids: [visit] } },
      ])
      .thenRows('vocs', [{ id: a, priority: 'HIGH', voc_group_id: group, communication_ids: [visit], version: 2 }]);
  });

  it('keeps the last saved list of groups in its order', async () => {
    const [x, y, z] = [randomUUID(), randomUUID(), randomUUID()];
    await test
      .given(
        [
          {
            type: 'VocGroupsReplaced',
            data: {
              voc_groups: [
                { id: x, name: '接遇' },
                { id: y, name: '返書' },
              ],
            },
          },
        ],
        [
          {
            type: 'VocGroupsReplaced',
            data: {
              voc_groups: [
                { id: y, name: '紹介・返書' },
                { id: z, name: '設備' },
              ],
            },
          },
        ],
      )
      .thenRows('voc_groups', [
        { id: y, name: '紹介・返書', sort_order: 0 },
        { id: z, name: '設備', sort_order: 1 },
      ]);
  });

  it('refuses an event it does not know the schema of', async () => {
    await test.given([{ type: 'VocCreated', data: { voc_id: 'x' } }]).thenFails(/VocCreated/);
  });
});
