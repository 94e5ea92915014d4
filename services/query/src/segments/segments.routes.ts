import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { HttpError, endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { referralsProjection, type ReadModels } from '@renkei/read-models';
import { registerEndpoint } from '@renkei/service-kit';
import { admissionPeriod, admissionSegments, institutionSegments, segmentationSetting } from './segments.queries.ts';

/** The stream revision as the ETag an owner's save sends back (none before the first save). */
const etag = (reply: { header: (k: string, v: string) => unknown }, version: number) => {
  if (version >= 0) reply.header('etag', `"${version}"`);
};

/**
 * Referral admission segments (spec §3, §7): the owners' segmentation setting, the segments it
 * defines, and an institution's segment from the referral rollups; plus the admission period (an
 * addition) for the settings screen. All kept by the referrals projection.
 */
export function registerSegmentQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const reads = { reads: [referralsProjection.name] };

  registerEndpoint(
    app,
    endpoints.segmentationSetting,
    async ({ auth, reply }) => {
      const { setting, version } = await segmentationSetting(deps.db.typed<ReadModels>(), auth.tenantId);
      etag(reply, version);
      return setting;
    },
    reads,
  );

  registerEndpoint(
    app,
    endpoints.referralAdmissionSegments,
    async ({ auth }) =>
      admissionSegments((await segmentationSetting(deps.db.typed<ReadModels>(), auth.tenantId)).setting),
    reads,
  );

  registerEndpoint(
    app,
    endpoints.referralAdmissionPeriod,
    async ({ auth, reply }) => {
      const { period, version } = await admissionPeriod(deps.db.typed<ReadModels>(), auth.tenantId);
      etag(reply, version);
      return period;
    },
    reads,
  );

  registerEndpoint(
    app,
    endpoints.getSegments,
    async ({ params, auth }) => {
      const db = deps.db.typed<ReadModels>();
      const { rows } = await sql`SELECT 1 FROM ref.medical_institutions WHERE id = ${params.id}`.execute(db);
      if (rows.length === 0) throw new HttpError(404);
      const { setting } = await segmentationSetting(db, auth.tenantId);
      return institutionSegments(db, auth.tenantId, params.id, setting, new Date());
    },
    reads,
  );
}
