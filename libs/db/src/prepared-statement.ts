import type { Database } from './open-database.ts';

export interface StatementConfig {
  name?: string;
  text: string;
  values: unknown[];
}

/**
 * A hot statement for `db.pool.query`: named on a real server, so each connection parses and plans it
 * once (a CTE can cost more to plan than to run). PGlite multiplexes one backend, where named
 * statements of different pool clients collide, so there it stays unnamed.
 */
export function preparedStatement(db: Pick<Database, 'kind'>, name: string, text: string) {
  return db.kind === 'postgres'
    ? (values: unknown[]): StatementConfig => ({ name: `renkei_${name}`, text, values })
    : (values: unknown[]): StatementConfig => ({ text, values });
}
