import { sql } from 'kysely';
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { IdentityDb } from '../db/identity.tables.ts';

/**
 * oidc-provider storage in `identity.oidc_payloads`: sessions, grants, codes and refresh tokens
 * survive a restart and are shared by every identity instance.
 */
export class PostgresAdapter implements Adapter {
  constructor(
    private readonly type: string,
    private readonly db: IdentityDb,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const expiresAt = expiresIn ? new Date(Date.now() + expiresIn * 1000) : null;
    const row = {
      id,
      type: this.type,
      payload: JSON.stringify(payload),
      grant_id: payload.grantId ?? null,
      user_code: payload.userCode ?? null,
      uid: payload.uid ?? null,
      expires_at: expiresAt,
    };
    await this.db
      .insertInto('identity.oidc_payloads')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['id', 'type']).doUpdateSet({
          payload: row.payload,
          grant_id: row.grant_id,
          user_code: row.user_code,
          uid: row.uid,
          expires_at: row.expires_at,
        }),
      )
      .execute();
  }

  private async findBy(column: 'id' | 'uid' | 'user_code', value: string): Promise<AdapterPayload | undefined> {
    const row = await this.db
      .selectFrom('identity.oidc_payloads')
      .select(['payload', 'consumed_at'])
      .where('type', '=', this.type)
      .where(column, '=', value)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
      .executeTakeFirst();
    if (!row) return undefined;
    const payload = row.payload as AdapterPayload;
    return row.consumed_at ? { ...payload, consumed: Math.floor(new Date(row.consumed_at).getTime() / 1000) } : payload;
  }

  find(id: string) {
    return this.findBy('id', id);
  }

  findByUid(uid: string) {
    return this.findBy('uid', uid);
  }

  findByUserCode(userCode: string) {
    return this.findBy('user_code', userCode);
  }

  async consume(id: string): Promise<void> {
    await this.db
      .updateTable('identity.oidc_payloads')
      .set({ consumed_at: sql`now()` })
      .where('id', '=', id)
      .where('type', '=', this.type)
      .execute();
  }

  async destroy(id: string): Promise<void> {
    await this.db.deleteFrom('identity.oidc_payloads').where('id', '=', id).where('type', '=', this.type).execute();
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    await this.db.deleteFrom('identity.oidc_payloads').where('grant_id', '=', grantId).execute();
  }
}

/** Removes expired rows; the provider never asks for them again. */
export async function deleteExpiredPayloads(db: IdentityDb): Promise<void> {
  await db
    .deleteFrom('identity.oidc_payloads')
    .where('expires_at', '<', sql<Date>`now() - interval '1 hour'`)
    .execute();
}
