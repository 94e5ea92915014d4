import type { FastifyInstance } from 'fastify';
import { endpoints } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { referralsProjection, type ReadModels } from '@renkei/read-models';
import { registerEndpoint } from '@renkei/service-kit';
import { segmentMap } from './segment-map.queries.ts';

/** 診療圏分析 (an addition to the spec): the referring institutions of a period by segment, for the map. */
export function registerSegmentMapQueryRoutes(app: FastifyInstance, deps: { db: Database }): void {
  const db = deps.db.typed<ReadModels>();
  // The rollups and the segmentation setting are both kept by the referrals projection.
  registerEndpoint(app, endpoints.segmentMap, ({ body, auth }) => segmentMap(db, auth.tenantId, body), {
    reads: [referralsProjection.name],
  });
}
