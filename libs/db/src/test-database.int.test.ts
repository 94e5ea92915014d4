import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestDatabase, resolveTestDatabaseAdminUrl } from './test-database.ts';

/** A local port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('test database', () => {
  const dockerHost = process.env.DOCKER_HOST;
  afterEach(() => {
    if (dockerHost === undefined) delete process.env.DOCKER_HOST;
    else process.env.DOCKER_HOST = dockerHost;
  });

  it('uses the configured server when it answers', async () => {
    const db = await createTestDatabase({ poolMax: 1 });
    try {
      expect(new URL(db.url).hostname).toBe(
        new URL(process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://127.0.0.1').hostname,
      );
    } finally {
      await db.close();
    }
  });

  it('says in one line what to start when neither PostgreSQL nor a Docker engine answers', async () => {
    process.env.DOCKER_HOST = `tcp://127.0.0.1:${await closedPort()}`;
    const url = `postgres://postgres:secret@127.0.0.1:${await closedPort()}/postgres`;
    const error = await resolveTestDatabaseAdminUrl(url).catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toMatch(/^No PostgreSQL answers at .* and no Docker engine is reachable: start PostgreSQL/);
    expect(message).not.toContain('\n');
    expect(message).not.toContain('secret');
  });
});
