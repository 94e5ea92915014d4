import type { Database } from '@renkei/db';
import type { EventStore } from '@renkei/event-store';
import type { IdentityConfig } from './config.ts';

export interface IdentityDeps {
  db: Database;
  store: EventStore;
  config: IdentityConfig;
}

/** What tenant and account administration needs (the ops CLI and the demo seed have no config). */
export type AdminDeps = Pick<IdentityDeps, 'db' | 'store'>;
