import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { identityEndpoints, unprocessable } from '@renkei/contracts';
import {
  ReferralAdmissionPeriodChanged,
  defaultReferralAdmissionPeriodDays,
  referralAdmissionPeriodAggregate,
} from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore } from '@renkei/event-store';
import { registerEndpoint } from '@renkei/service-kit';
import type { IdentityDeps } from '../deps.ts';
import { enqueueAccountUpdated } from '../accounts/account.commands.ts';
import { publishQueued } from '../identity.events.ts';
import type { AccountRow } from '../accounts/account.queries.ts';
import { getCurrentUser, listStaffs, loadOwnAccount, profileOf } from './current-user.queries.ts';
import { identityDb } from '../db/identity.tables.ts';
import { currentOwnDepartment, ownDepartmentIds } from './own-departments.ts';

export function registerCurrentUserRoutes(app: FastifyInstance, deps: IdentityDeps): void {
  const db = identityDb(deps.db);

  registerEndpoint(app, identityEndpoints.getCurrentUser, async ({ auth }) => {
    const [user, departmentIds, period] = await Promise.all([
      getCurrentUser(db, auth.tenantId, auth.accountId),
      ownDepartmentIds(deps.store, auth.tenantId),
      admissionPeriodDays(deps.store, auth.tenantId),
    ]);
    return {
      ...user,
      own_department_id: currentOwnDepartment(user.own_department_id, departmentIds),
      tenant: { ...user.tenant, max_referral_hospital_admission_period: period },
    };
  });

  registerEndpoint(app, identityEndpoints.getProfile, async ({ auth }) => {
    const [account, departmentIds] = await Promise.all([
      loadOwnAccount(db, auth.tenantId, auth.accountId),
      ownDepartmentIds(deps.store, auth.tenantId),
    ]);
    return profileOf(account, departmentIds);
  });

  registerEndpoint(app, identityEndpoints.updateProfile, async ({ auth, body, reply }) => {
    const departmentIds = await ownDepartmentIds(deps.store, auth.tenantId);
    const department = body.own_department_id;
    if (department != null && !departmentIds.has(department)) {
      throw unprocessable([{ field: 'own_department_id', message: '所属診療科を自院の診療科から選んでください' }]);
    }
    const { updated, eventIds } = await db.transaction().execute(async (trx) => {
      const before = await loadOwnAccount(trx, auth.tenantId, auth.accountId);
      const updated = (await trx
        .updateTable('identity.accounts')
        .set({
          username: body.username,
          ...body.notification_settings,
          ...(department === undefined ? {} : { own_department_id: department }),
          updated_at: sql`now()`,
        })
        .where('id', '=', auth.accountId)
        .where('tenant_id', '=', auth.tenantId)
        .returningAll()
        .executeTakeFirstOrThrow()) as AccountRow;
      // Read models show names: an event only when something they carry changed.
      const changed = updated.username !== before.username;
      return { updated, eventIds: changed ? [await enqueueAccountUpdated(trx, updated, auth.accountId)] : [] };
    });
    // Read-your-writes for the names other pages show (staff lists, histories).
    const position = await publishQueued(deps, eventIds);
    if (position) reply.position(position);
    return profileOf(updated, departmentIds);
  });

  registerEndpoint(app, identityEndpoints.listStaffs, async ({ auth, query }) =>
    listStaffs(db, auth.tenantId, {
      includeCsAccounts: query.include_cs_accounts,
      includeInactive: query.include_inactive,
    }),
  );
}

/**
 * The tenant's admission period in days as its owners set it (PUT /referral_admission_period): the
 * last change on the tenant's `referral_admission_period` stream, else the default. Identity reads
 * that stream of the shared store instead of keeping a copy (docs/decisions.md "Admission period on
 * /current_user"); it is one short stream per tenant, a change or two a year.
 */
async function admissionPeriodDays(store: EventStore, tenantId: string): Promise<number> {
  const events = await readStreamOrEmpty(store, streamId(referralAdmissionPeriodAggregate, tenantId), tenantId);
  const last = [...events].reverse().find((e) => e.type === 'ReferralAdmissionPeriodChanged');
  return last ? ReferralAdmissionPeriodChanged.parse(last.data).days : defaultReferralAdmissionPeriodDays;
}
