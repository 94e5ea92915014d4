import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { migrateModule, type Database } from '@renkei/db';
import { institutionMasterMigrations } from './master.migrations.ts';
import { detectEncoding, readMasterFile, type FileEncoding } from './master-file.ts';
import { parseMasterRecord, type MasterInstitution } from './master-row.ts';

export interface SyncRowError {
  row: number;
  message: string;
}

export interface SyncRunResult {
  id: string;
  status: 'completed' | 'failed';
  encoding: FileEncoding;
  totalRows: number;
  insertedCount: number;
  updatedCount: number;
  unchangedCount: number;
  closedCount: number;
  failedCount: number;
  /** The first 1,000 row errors (all are counted in failedCount). */
  errors: SyncRowError[];
  errorMessage: string | null;
}

export interface ImportMasterOptions {
  encoding?: FileEncoding | undefined;
  /**
   * A full sync (the default) means the file lists every institution: the ones it no longer lists are
   * marked closed. A partial file only adds and updates.
   */
  fullSync?: boolean | undefined;
  batchSize?: number | undefined;
}

const maxStoredErrors = 1000;

/** Creates the `ref` schema of the institution master (idempotent). */
export async function migrateInstitutionMaster(db: Database): Promise<void> {
  await migrateModule(db.kysely, 'institution_master', institutionMasterMigrations);
}

/**
 * Loads a master file into `ref.medical_institutions`: streamed, upserted in batches, changed rows
 * updated, unchanged rows left alone, invalid rows reported by row number and skipped. Each run is
 * recorded in `ref.sync_runs` for the data-sync-status page.
 */
export async function importInstitutionMaster(
  db: Database,
  filePath: string,
  options: ImportMasterOptions = {},
): Promise<SyncRunResult> {
  await migrateInstitutionMaster(db);
  const fullSync = options.fullSync ?? true;
  const batchSize = options.batchSize ?? 1000;
  const encoding = options.encoding ?? (await detectEncoding(filePath));
  const runId = randomUUID();
  await db.pool.query(
    `INSERT INTO ref.sync_runs (id, source, full_sync, encoding, status) VALUES ($1, $2, $3, $4, 'running')`,
    [runId, path.basename(filePath), fullSync, encoding],
  );
  const result: SyncRunResult = {
    id: runId,
    status: 'completed',
    encoding,
    totalRows: 0,
    insertedCount: 0,
    updatedCount: 0,
    unchangedCount: 0,
    closedCount: 0,
    failedCount: 0,
    errors: [],
    errorMessage: null,
  };
  const fail = (row: number, message: string) => {
    result.failedCount++;
    if (result.errors.length < maxStoredErrors) result.errors.push({ row, message });
  };
  // Codes the file mentions, valid or not: a row that failed validation must not close its institution.
  const seen = new Set<string>();
  let batch: MasterInstitution[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const { inserted, updated } = await upsertBatch(db, batch, runId);
    result.insertedCount += inserted;
    result.updatedCount += updated;
    result.unchangedCount += batch.length - inserted - updated;
    batch = [];
  };
  try {
    for await (const { rowNumber, record } of readMasterFile(filePath, { encoding })) {
      result.totalRows++;
      const parsed = parseMasterRecord(record);
      if (!parsed.ok) {
        if (parsed.code) seen.add(parsed.code);
        fail(rowNumber, `${rowNumber}行目: ${parsed.messages.join('、')}`);
        continue;
      }
      if (seen.has(parsed.value.code)) {
        fail(rowNumber, `${rowNumber}行目: 医療機関コード「${parsed.value.code}」が重複しています`);
        continue;
      }
      seen.add(parsed.value.code);
      batch.push(parsed.value);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
    if (fullSync) {
      // A file that yielded nothing valid is more likely a wrong file than the end of every institution.
      if (seen.size === 0) throw new Error('有効な行が1件もないため、廃止の反映を行いませんでした');
      const closed = await db.pool.query(
        `UPDATE ref.medical_institutions AS m
            SET running_status = 'closed', content_hash = NULL, updated_at = now(), last_sync_run_id = $2
          WHERE running_status <> 'closed'
            AND NOT EXISTS (SELECT 1 FROM unnest($1::text[]) AS seen(code) WHERE seen.code = m.code)`,
        [[...seen], runId],
      );
      result.closedCount = closed.rowCount ?? 0;
    }
    if (result.insertedCount + result.updatedCount + result.closedCount > 0) {
      // Searches depend on what a load changes: the planner chooses between walking the kana index and
      // the keyword indexes from each 2-gram's frequency, index-only scans need the visibility map, and
      // GIN entries of the batches wait in a pending list every search would read. Autovacuum gets to
      // all of that eventually; a sync job does it at once.
      await db.pool.query('VACUUM (ANALYZE) ref.medical_institutions');
    }
  } catch (error) {
    result.status = 'failed';
    result.errorMessage = error instanceof Error ? error.message : String(error);
  }
  await db.pool.query(
    `UPDATE ref.sync_runs SET status = $2, total_rows = $3, inserted_count = $4, updated_count = $5,
            unchanged_count = $6, closed_count = $7, failed_count = $8, errors = $9::jsonb, error_message = $10,
            finished_at = now()
      WHERE id = $1`,
    [
      runId,
      result.status,
      result.totalRows,
      result.insertedCount,
      result.updatedCount,
      result.unchangedCount,
      result.closedCount,
      result.failedCount,
      JSON.stringify(result.errors),
      result.errorMessage,
    ],
  );
  return result;
}

const columns = [
  ['id', 'uuid'],
  ['code', 'text'],
  ['name', 'text'],
  ['kana', 'text'],
  ['postal_code', 'text'],
  ['address', 'text'],
  ['prefecture_code', 'smallint'],
  ['prefecture', 'text'],
  ['city', 'text'],
  ['tel', 'text'],
  ['founder', 'text'],
  ['administrator_name', 'text'],
  ['facility_type_id', 'integer'],
  ['facility_type_group_id', 'integer'],
  ['bed_count', 'integer'],
  ['department_names', 'text'],
  ['department_ids', 'text'],
  ['latitude', 'double precision'],
  ['longitude', 'double precision'],
  ['running_status', 'text'],
  ['search_text', 'text'],
  ['content_hash', 'text'],
] as const;

// Arrays of arrays cannot be unnested, so list columns travel as unit-separator-joined text.
const sep = '\u001f';

async function upsertBatch(db: Database, rows: MasterInstitution[], runId: string) {
  const values: unknown[][] = columns.map(() => []);
  for (const r of rows) {
    const v = [
      r.id,
      r.code,
      r.name,
      r.kana,
      r.postalCode,
      r.address,
      r.prefectureCode,
      r.prefecture,
      r.city,
      r.tel,
      r.founder,
      r.administratorName,
      r.facilityTypeId,
      r.facilityTypeGroupId,
      r.bedCount,
      r.departmentNames.join(sep),
      r.departmentIds.join(sep),
      r.latitude,
      r.longitude,
      r.runningStatus,
      r.searchText,
      r.contentHash,
    ];
    v.forEach((x, i) => values[i]!.push(x));
  }
  const names = columns.map(([c]) => c);
  const select = columns.map(([c]) =>
    c === 'department_names'
      ? `CASE WHEN t.${c} = '' THEN '{}'::text[] ELSE string_to_array(t.${c}, E'\\x1f') END`
      : c === 'department_ids'
        ? `CASE WHEN t.${c} = '' THEN '{}'::integer[] ELSE string_to_array(t.${c}, E'\\x1f')::integer[] END`
        : `t.${c}`,
  );
  const sql = `
    INSERT INTO ref.medical_institutions (${names.join(', ')}, last_sync_run_id)
    SELECT ${select.join(', ')}, $${columns.length + 1}::uuid
      FROM unnest(${columns.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})
        AS t(${names.join(', ')})
    ON CONFLICT (code) DO UPDATE SET
      ${names
        .filter((c) => c !== 'id' && c !== 'code')
        .map((c) => `${c} = EXCLUDED.${c}`)
        .join(', ')},
      last_sync_run_id = EXCLUDED.last_sync_run_id,
      updated_at = now()
    WHERE ref.medical_institutions.content_hash IS DISTINCT FROM EXCLUDED.content_hash
    RETURNING (xmax = 0) AS inserted`;
  const res = await db.pool.query<{ inserted: boolean }>(sql, [...values, runId]);
  const inserted = res.rows.filter((r) => r.inserted).length;
  return { inserted, updated: res.rows.length - inserted };
}
