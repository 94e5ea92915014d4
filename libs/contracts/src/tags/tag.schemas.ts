import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { IdParams, Id, PageQuery, SortDirection, paged, NoContent } from '../core/zod-helpers.ts';

export const Tag = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  medical_institution_count: z.number().int(),
  /** The tag group it belongs to (decisions.md: groups are named by their tags). */
  group_name: z.string().nullable(),
  /** Stream revision; sent back as If-Match. */
  version: z.number().int(),
});
export type Tag = z.infer<typeof Tag>;

export const TagGroup = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  tags: z.array(Tag),
});
export type TagGroup = z.infer<typeof TagGroup>;

export const TagInput = z.object({
  name: z.string().trim().min(1, 'タグ名を入力してください').max(50, 'タグ名は50文字以内で入力してください'),
  description: z.string().max(200, '説明は200文字以内で入力してください').default(''),
  /** Puts the tag in the tag group of that name; absent or empty: in no group. */
  group_name: z
    .string()
    .trim()
    .max(50, 'グループ名は50文字以内で入力してください')
    .nullish()
    .transform((v) => (v ? v : null)),
});
export type TagInput = z.infer<typeof TagInput>;

export const TagListQuery = PageQuery.extend({ sort: SortDirection.default('asc') });

export const tagEndpoints = {
  listTagGroups: endpoint({
    id: 'tags.listTagGroups',
    area: 'tags',
    method: 'GET',
    path: '/tag_groups',
    service: 'query',
    summary: 'タググループ一覧',
    response: z.array(TagGroup),
    successStatus: 200,
    feature: 'tags',
    served: true,
  }),
  listTags: endpoint({
    id: 'tags.listTags',
    area: 'tags',
    method: 'GET',
    path: '/tags',
    service: 'query',
    summary: 'タグ一覧',
    query: TagListQuery,
    response: paged(Tag),
    successStatus: 200,
    feature: 'tags',
    served: true,
  }),
  createTag: endpoint({
    id: 'tags.createTag',
    area: 'tags',
    method: 'POST',
    path: '/tags',
    service: 'command',
    summary: 'タグ作成',
    body: TagInput,
    response: Tag,
    successStatus: 201,
    feature: 'tags',
    served: true,
  }),
  updateTag: endpoint({
    id: 'tags.updateTag',
    area: 'tags',
    method: 'PUT',
    path: '/tags/{id}',
    service: 'command',
    summary: 'タグ更新',
    params: IdParams,
    body: TagInput,
    response: Tag,
    successStatus: 200,
    feature: 'tags',
    served: true,
  }),
  deleteTag: endpoint({
    id: 'tags.deleteTag',
    area: 'tags',
    method: 'DELETE',
    path: '/tags/{id}',
    service: 'command',
    summary: 'タグ削除',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
    feature: 'tags',
    served: true,
  }),
};
