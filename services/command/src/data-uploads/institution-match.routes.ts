import type { FastifyInstance } from 'fastify';
import { endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { institutionDismissalsAggregate, institutionMatchesAggregate } from '@renkei/domain';
import { streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { etagOf } from '../shared/command-context.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { assertInstitutionExists } from '../shared/facts.ts';
import { profilesIfMatch } from './data-upload.routes.ts';
import { institutionDismissalDecider } from './institution-dismissal.decider.ts';
import { institutionMatchDecider } from './institution-match.decider.ts';

/**
 * PUT /data_uploads/institution_matches (owners): a list's institution the master did not match,
 * matched by hand. The referrals projection moves the rows already imported and applies it to later ones.
 */
export function registerInstitutionMatchRoutes(app: FastifyInstance, deps: { db: Database; store: EventStore }): void {
  const { db, store } = deps;
  registerEndpoint(app, endpoints.matchInstitution, async ({ body, auth, request, reply }) => {
    await assertInstitutionExists(db, body.medical_institution_id);
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(institutionMatchesAggregate, auth.tenantId),
        decider: institutionMatchDecider,
        command: {
          institutionCode: body.institution_code,
          institutionName: body.institution_name,
          medicalInstitutionId: body.medical_institution_id,
        },
        // Without If-Match the last match asked for wins (deciding again on a newer stream is what the
        // owner wants); with it (the stream's revision, as the ETag answers), a stale one is a 409.
        ifMatch: profilesIfMatch(request.headers['if-match']),
        onRace: 'recompute',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return body;
  });

  // PUT /data_uploads/institution_dismissals (owners): a (code, name) set aside, or put back on the list.
  registerEndpoint(app, endpoints.dismissUnmatchedInstitution, async ({ body, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(institutionDismissalsAggregate, auth.tenantId),
        decider: institutionDismissalDecider,
        command: {
          institutionCode: body.institution_code,
          institutionName: body.institution_name,
          dismissed: body.dismissed,
        },
        // The owner's last click is what they want: deciding again on a newer stream, never a 409.
        onRace: 'recompute',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return body;
  });
}
