import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { endpoints, type SegmentationSetting } from '@renkei/contracts';
import {
  ownDepartmentsAggregate,
  referralAdmissionPeriodAggregate,
  segmentationSettingAggregate,
  segmentationSettingId,
} from '@renkei/domain';
import { streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import { ownDepartmentsDecider } from '../phases/phase-master.decider.ts';
import { readState } from '../shared/facts.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { etagOf, revisionIfMatch } from '../shared/command-context.ts';
import { referralAdmissionPeriodDecider, segmentationSettingDecider } from './referral-settings.decider.ts';

/** When the setting was last saved: now for a save, else its last stored event (none: never saved). */
const savedAt = (appended: boolean, stored: RecordedEvent[]) =>
  appended ? new Date().toISOString() : (stored.at(-1)?.created_at.toISOString() ?? null);

/**
 * Owners' referral settings (additions to the spec): the segmentation setting of
 * `/medical_institutions/{id}/segments` and the admission period of the referral–stay join. A period
 * change is one event here; the worker then re-links the tenant's stays in slices.
 */
export function registerReferralSettingsRoutes(app: FastifyInstance, deps: { store: EventStore }): void {
  const { store } = deps;

  registerEndpoint(app, endpoints.updateSegmentationSetting, async ({ body, auth, request, reply }) => {
    const { state: departments } = await readState(
      store,
      auth.tenantId,
      streamId(ownDepartmentsAggregate, auth.tenantId),
      ownDepartmentsDecider,
    );
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(segmentationSettingAggregate, auth.tenantId),
        decider: segmentationSettingDecider,
        command: {
          type: 'ReplaceSegmentationSetting',
          input: body,
          ownDepartmentIds: new Set(departments.map((d) => d.id)),
          newId: randomUUID,
        },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    const answer: SegmentationSetting = {
      id: segmentationSettingId(auth.tenantId),
      ...result.after,
      updated_at: savedAt(result.position !== null, result.stored),
      version: result.revision,
    };
    return answer;
  });

  registerEndpoint(app, endpoints.updateReferralAdmissionPeriod, async ({ body, auth, request, reply }) => {
    const result = await handleCommand(
      { store, auth, requestId: request.id },
      {
        stream: streamId(referralAdmissionPeriodAggregate, auth.tenantId),
        decider: referralAdmissionPeriodDecider,
        command: { type: 'ChangeReferralAdmissionPeriod', days: body.max_referral_hospital_admission_period },
        ifMatch: revisionIfMatch(request.headers['if-match']),
        onRace: 'conflict',
      },
    );
    if (result.position) reply.position(result.position);
    void reply.header('etag', etagOf(result.revision));
    return {
      max_referral_hospital_admission_period: result.after.days,
      updated_at: savedAt(result.position !== null, result.stored),
    };
  });
}
