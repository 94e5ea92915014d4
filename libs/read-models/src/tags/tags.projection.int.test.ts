import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { tagGroupId } from '@renkei/domain';
import { projectionTest } from '@renkei/projections/testing';
import { tagsProjection } from './tags.projection.ts';

const test = projectionTest(tagsProjection);
const tag = (tag_id: string, name: string, group_name: string | null = null) => ({
  tag_id,
  name,
  description: '',
  group_name,
});

describe('tags projection', () => {
  it('keeps the last state of each tag, its group and its institution count, across batches', async () => {
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    const institution = randomUUID();
    await test
      .given(
        [
          { type: 'TagCreated', stream: `tag-${a}`, data: tag(a, '紹介元') },
          { type: 'TagCreated', stream: `tag-${b}`, data: tag(b, 'ｶﾞｲﾗｲ', '外来') },
          { type: 'TagCreated', stream: `tag-${c}`, data: tag(c, '削除予定') },
          {
            type: 'MedicalInstitutionTagsChanged',
            data: { medical_institution_id: institution, tag_ids: [a, b], added_tag_ids: [a, b], removed_tag_ids: [] },
          },
        ],
        [
          { type: 'TagUpdated', stream: `tag-${a}`, data: tag(a, '紹介元（主）') },
          { type: 'TagDeleted', stream: `tag-${c}`, data: { tag_id: c } },
          {
            type: 'MedicalInstitutionTagsChanged',
            data: { medical_institution_id: institution, tag_ids: [a], added_tag_ids: [], removed_tag_ids: [b] },
          },
        ],
      )
      .thenRows('tags', [
        {
          tenant_id: test.tenantId,
          id: a,
          name: '紹介元（主）',
          group_id: null,
          medical_institution_count: 1,
          version: 1,
        },
        {
          tenant_id: test.tenantId,
          id: b,
          name: 'ｶﾞｲﾗｲ',
          group_id: tagGroupId(test.tenantId, '外来'),
          medical_institution_count: 0,
          version: 0,
        },
      ]);
  });

  it('stores the NFKC-normalised name beside the name', async () => {
    const id = randomUUID();
    await test
      .given([{ type: 'TagCreated', data: tag(id, 'ｶﾞｲﾗｲ  科') }])
      .thenRows('tags', [{ name: 'ｶﾞｲﾗｲ  科', normalized_name: 'ガイライ 科' }]);
  });

  it('fails loudly on an event of a schema version it cannot read', async () => {
    const id = randomUUID();
    await test.given([{ type: 'TagCreated', data: tag(id, '新形式'), schemaVersion: 2 }]).thenFails(/schema version 2/);
  });

  it('fails loudly on data its schema refuses instead of writing part of a row', async () => {
    await test.given([{ type: 'TagCreated', data: { tag_id: randomUUID(), name: 'x' } }]).thenFails(/TagCreated/);
  });
});
