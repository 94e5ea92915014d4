import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { identityEndpoints } from '@renkei/contracts';
import { registerEndpoint } from '@renkei/service-kit';
import type { IdentityDeps } from '../deps.ts';
import { publishAccountUpdated } from '../accounts/account.commands.ts';
import type { AccountRow } from '../accounts/account.queries.ts';
import { getCurrentUser, listStaffs, loadOwnAccount, profileOf } from './current-user.queries.ts';

export function registerCurrentUserRoutes(app: FastifyInstance, deps: IdentityDeps): void {
  const db = deps.db.kysely;

  registerEndpoint(app, identityEndpoints.getCurrentUser, async ({ auth }) =>
    getCurrentUser(db, auth.tenantId, auth.accountId),
  );

  registerEndpoint(app, identityEndpoints.getProfile, async ({ auth }) =>
    profileOf(await loadOwnAccount(db, auth.tenantId, auth.accountId)),
  );

  registerEndpoint(app, identityEndpoints.updateProfile, async ({ auth, body }) => {
    const before = await loadOwnAccount(db, auth.tenantId, auth.accountId);
    const updated = (await db
      .updateTable('identity.accounts')
      .set({
        username: body.username,
        ...body.notification_settings,
        updated_at: sql`now()`,
      })
      .where('id', '=', auth.accountId)
      .where('tenant_id', '=', auth.tenantId)
      .returningAll()
      .executeTakeFirstOrThrow()) as AccountRow;
    // Read models show names: publish only when something they carry changed.
    if (updated.username !== before.username) await publishAccountUpdated(deps, updated, auth.accountId);
    return profileOf(updated);
  });

  registerEndpoint(app, identityEndpoints.listStaffs, async ({ auth, query }) =>
    listStaffs(db, auth.tenantId, {
      includeCsAccounts: query.include_cs_accounts,
      includeInactive: query.include_inactive,
    }),
  );
}
