import type { FastifyInstance } from 'fastify';
import { endpoints, type Tag } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { normalizeTagName, tagAggregate } from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { etagOf, revisionIfMatch } from '../shared/command-context.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { idempotentCreate } from '../shared/idempotency.ts';
import type { TenantLimitsCache } from '../shared/tenant-limits.ts';
import { tagDecider, type TagState } from './tag.decider.ts';
import { createTagNames } from './tag-names.ts';
import { createTagUsage } from './tag-usage.ts';

export interface TagRouteDeps {
  db: Database;
  store: EventStore;
  tenantLimits: TenantLimitsCache;
}

const toTag = (tagId: string, state: TagState, version: number, medicalInstitutionCount: number): Tag => ({
  id: tagId,
  name: state.name,
  description: state.description,
  medical_institution_count: medicalInstitutionCount,
  group_name: state.groupName,
  version,
});

export function registerTagRoutes(app: FastifyInstance, deps: TagRouteDeps): void {
  const { db, store, tenantLimits } = deps;
  const { appendNamed } = createTagNames(db, store);
  const tagUsage = createTagUsage(db, store);

  registerEndpoint(app, endpoints.createTag, async ({ body, auth, request, reply }) =>
    idempotentCreate(
      db,
      {
        request,
        reply,
        tenantId: auth.tenantId,
        endpoint: endpoints.createTag.id,
        hashed: body,
        etag: (t: Tag) => etagOf(t.version),
      },
      async (tagId, retryable) => {
        const limit = (await tenantLimits.get(auth.tenantId))?.max_tag_count ?? null;
        const result = await handleCommand(
          { store, auth, requestId: request.id },
          {
            stream: streamId(tagAggregate, tagId),
            decider: tagDecider,
            command: {
              type: 'CreateTag',
              tagId,
              name: body.name,
              description: body.description,
              groupName: body.group_name,
            },
            isNew: true,
            onRace: 'conflict',
            // With an Idempotency-Key, ids from the tag and the body: only a retry of the very same
            // request is the same append. Without one the tag id is new, no retry can name it, and the
            // store's own ids spare it looking them up.
            ...(retryable
              ? { eventId: (i: number) => deterministicId(tagId, 'create', retryable.hash, String(i)) }
              : {}),
            append: (events, expectedRevision) =>
              appendNamed({
                tenantId: auth.tenantId,
                tagId,
                name: normalizeTagName(body.name),
                release: null,
                limit,
                keepReservationOnFailure: retryable !== null,
                append: (guard) => store.append(streamId(tagAggregate, tagId), events, { expectedRevision, guard }),
              }),
          },
        );
        // A new tag is on no institution yet.
        return { body: toTag(tagId, result.after, result.revision, 0), position: result.position };
      },
    ),
  );

  registerEndpoint(app, endpoints.updateTag, async ({ params, body, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(tagAggregate, params.id),
        decider: tagDecider,
        command: {
          type: 'UpdateTag',
          tagId: params.id,
          name: body.name,
          description: body.description,
          groupName: body.group_name,
        },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
        append: (events, expectedRevision, { before, after }) => {
          const renamed = after.normalizedName !== before.normalizedName;
          return appendNamed({
            tenantId: auth.tenantId,
            tagId: params.id,
            name: renamed ? after.normalizedName : null,
            release: renamed ? before.normalizedName : null,
            // A rename is not a new tag: the limit does not apply.
            limit: null,
            keepReservationOnFailure: false,
            append: (guard) => store.append(streamId(tagAggregate, params.id), events, { expectedRevision, guard }),
          });
        },
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return toTag(params.id, result.after, result.revision, await tagUsage.count(auth.tenantId, params.id));
  });

  registerEndpoint(app, endpoints.deleteTag, async ({ params, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(tagAggregate, params.id),
        decider: tagDecider,
        command: { type: 'DeleteTag', tagId: params.id },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
        append: (events, expectedRevision, { before }) =>
          appendNamed({
            tenantId: auth.tenantId,
            tagId: params.id,
            name: null,
            release: before.normalizedName,
            limit: null,
            keepReservationOnFailure: false,
            append: (guard) => store.append(streamId(tagAggregate, params.id), events, { expectedRevision, guard }),
          }),
      },
    );
    if (result.position) reply.position(result.position);
    return null;
  });
}
