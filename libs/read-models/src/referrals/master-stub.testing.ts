import { sql } from 'kysely';
import type { TestDatabase } from '@renkei/db';

export interface MasterStubRow {
  id: string;
  facility_type_id: number | null;
  prefecture_code: number | null;
  prefecture: string;
  city: string;
}

/**
 * The institution master's columns the referral rollups read, for tests of the referrals projection (the
 * master's own migrations live in another package), with one completed sync.
 */
export async function createMasterStub(db: TestDatabase, rows: readonly MasterStubRow[]): Promise<void> {
  await sql`CREATE SCHEMA IF NOT EXISTS ref`.execute(db.kysely);
  await sql`CREATE TABLE ref.medical_institutions (id uuid PRIMARY KEY, facility_type_id int, prefecture_code smallint,
                                                   prefecture text NOT NULL DEFAULT '', city text NOT NULL DEFAULT '')`.execute(
    db.kysely,
  );
  await sql`CREATE TABLE ref.sync_runs (kind text NOT NULL DEFAULT 'medical_institutions', status text NOT NULL)`.execute(
    db.kysely,
  );
  await sql`INSERT INTO ref.sync_runs (status) VALUES ('completed')`.execute(db.kysely);
  for (const r of rows)
    await sql`INSERT INTO ref.medical_institutions (id, facility_type_id, prefecture_code, prefecture, city)
              VALUES (${r.id}, ${r.facility_type_id}, ${r.prefecture_code}, ${r.prefecture}, ${r.city})`.execute(
      db.kysely,
    );
}
