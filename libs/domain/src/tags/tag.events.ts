import { z } from 'zod';
import { eventParser } from '../event-union.ts';
import { uuidV5 } from '../uuid-v5.ts';

/**
 * Tags of a tenant. Stream `tag-<uuid>` (see `streamId`); the stream revision is the record's
 * `version`. A tag may belong to a tag group, named by `group_name` (see docs/decisions.md).
 */
export const TagCreated = z.object({
  tag_id: z.string().uuid(),
  name: z.string(),
  description: z.string(),
  group_name: z.string().nullable(),
});
export type TagCreated = z.infer<typeof TagCreated>;

export const TagUpdated = TagCreated;
export type TagUpdated = z.infer<typeof TagUpdated>;

/** The tag is gone everywhere: read models that reference it drop the reference. */
export const TagDeleted = z.object({ tag_id: z.string().uuid() });
export type TagDeleted = z.infer<typeof TagDeleted>;

export const tagEventSchemas = { TagCreated, TagUpdated, TagDeleted } as const;
export type TagEventType = keyof typeof tagEventSchemas;

export type TagEvent =
  | { type: 'TagCreated'; data: TagCreated }
  | { type: 'TagUpdated'; data: TagUpdated }
  | { type: 'TagDeleted'; data: TagDeleted };

export const tagAggregate = 'tag';

/** A stored event of a tag stream as its typed union; anything else throws. */
export const parseTagEvent = eventParser(tagAggregate, tagEventSchemas);

/**
 * The form under which two tag names are the same: trimmed, NFKC-normalised (so 全角 and 半角 variants
 * of letters, digits and katakana coincide), inner whitespace collapsed. Letter case is kept: the spec only merges width variants.
 */
export function normalizeTagName(name: string): string {
  return name.normalize('NFKC').trim().replace(/\s+/g, ' ');
}

/**
 * A tag group's id: groups exist through the tags that name them (docs/decisions.md), so the id is
 * derived from the tenant and the normalised group name (UUIDv5) and stays stable across renames
 * of its tags.
 */
export function tagGroupId(tenantId: string, groupName: string): string {
  return uuidV5(tagGroupNamespace, `${tenantId}\u0000${normalizeTagName(groupName)}`);
}

/** Never change: group ids derived from it are shown to clients. */
const tagGroupNamespace = '2b7e1c5a9f0d4c3e8a6b5d4c3b2a1f0e';
