import { sql } from 'kysely';
import { migrateModule, preparedStatement, type Database, type ModuleMigrations } from '@renkei/db';

/** What is known of a stored file besides its bytes. */
export interface StoredFile {
  id: string;
  tenantId: string;
  filename: string;
  /** Sniffed from the bytes when stored. */
  contentType: string;
  size: number;
  createdBy: string;
  createdAt: Date;
  /** Who references the file (`communication:<id>`), null while nothing does. */
  owner: string | null;
}

export interface NewFile {
  id: string;
  tenantId: string;
  filename: string;
  contentType: string;
  createdBy: string;
}

/**
 * Where uploaded files live. Every read names the tenant, so a file of another tenant is simply
 * not found. A file belongs to at most one owner (the record that references it); one nobody has
 * referenced for a day is removed by `removeUnreferenced`.
 */
export interface FileStorage {
  /** Creates what the storage needs (idempotent). */
  migrate(): Promise<void>;
  /** Stores the content as it streams; nothing is visible unless the whole file got stored. */
  /**
   * Stores a file, its content pulled chunk by chunk inside one transaction. `content` must not read
   * through the same database (another file's `read`): on the embedded PGlite's one connection it would
   * wait for the transaction that waits for it.
   */
  put(file: NewFile, content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<StoredFile>;
  /** The tenant's files among `ids` (others are absent from the answer). */
  find(tenantId: string, ids: readonly string[]): Promise<StoredFile[]>;
  /** One file whatever its tenant: for signed links, whose signature names the tenant. */
  findAnyTenant(id: string): Promise<StoredFile | null>;
  /** The content, chunk by chunk. */
  read(file: StoredFile): AsyncIterable<Uint8Array>;
  /**
   * Makes `fileIds` (in this order) the files of `owner` as of `revision` of the owner's stream,
   * and releases the owner's other files. Older revisions change nothing, so replays are harmless;
   * a file another owner holds is left with it.
   */
  setOwnerFiles(tenantId: string, owner: string, fileIds: readonly string[], revision: number): Promise<void>;
  /** The files each owner references, in their order. */
  filesOf(tenantId: string, owners: readonly string[]): Promise<Map<string, StoredFile[]>>;
  /** Removes files nobody has referenced since before `cutoff`; answers how many. */
  removeUnreferenced(cutoff: Date): Promise<number>;
}

/** Bytes per stored chunk: reads and writes move one chunk at a time, never a whole file. */
const chunkBytes = 256 * 1024;

const migrations: ModuleMigrations = {
  '0001_files': {
    async up(db) {
      await sql`CREATE SCHEMA IF NOT EXISTS files`.execute(db);
      await sql`CREATE TABLE files.stored_files (
        id uuid PRIMARY KEY,
        tenant_id uuid NOT NULL,
        filename text NOT NULL,
        content_type text NOT NULL,
        size bigint NOT NULL,
        created_by uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        owner text,
        owner_position int,
        -- The owner's stream revision that last linked or released the file (replays never go back).
        owner_revision int,
        -- Whether the owner still references it; the owner is kept after a release for the revision check.
        referenced boolean NOT NULL DEFAULT false,
        unreferenced_since timestamptz NOT NULL DEFAULT now()
      )`.execute(db);
      await sql`CREATE INDEX stored_files_owner ON files.stored_files (tenant_id, owner) WHERE referenced`.execute(db);
      await sql`CREATE INDEX stored_files_unreferenced ON files.stored_files (unreferenced_since) WHERE NOT referenced`.execute(
        db,
      );
      await sql`CREATE TABLE files.file_chunks (
        file_id uuid NOT NULL REFERENCES files.stored_files (id) ON DELETE CASCADE,
        seq int NOT NULL,
        data bytea NOT NULL,
        PRIMARY KEY (file_id, seq)
      )`.execute(db);
    },
  },
};

interface Row {
  id: string;
  tenant_id: string;
  filename: string;
  content_type: string;
  size: string | number;
  created_by: string;
  created_at: Date | string;
  owner: string | null;
  referenced: boolean;
}

const toFile = (r: Row): StoredFile => ({
  id: r.id,
  tenantId: r.tenant_id,
  filename: r.filename,
  contentType: r.content_type,
  size: Number(r.size),
  createdBy: r.created_by,
  createdAt: new Date(r.created_at),
  owner: r.referenced ? r.owner : null,
});

const columns = sql`id, tenant_id, filename, content_type, size, created_by, created_at, owner, referenced`;

/** Collects a stream into chunks of `chunkBytes` (the last one shorter). */
async function* rechunk(content: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): AsyncIterable<Buffer> {
  let pending: Buffer[] = [];
  let length = 0;
  for await (const part of content) {
    let buf = Buffer.from(part.buffer, part.byteOffset, part.byteLength);
    while (length + buf.length >= chunkBytes) {
      const take = chunkBytes - length;
      pending.push(buf.subarray(0, take));
      yield Buffer.concat(pending);
      buf = buf.subarray(take);
      pending = [];
      length = 0;
    }
    if (buf.length > 0) {
      pending.push(Buffer.from(buf));
      length += buf.length;
    }
  }
  if (length > 0) yield Buffer.concat(pending);
}

/**
 * The default storage: files in the application's PostgreSQL database (schema `files`), on the
 * embedded PGlite as on a server, so they are backed up with everything else.
 */
export function createPostgresFileStorage(db: Database): FileStorage {
  const k = db.kysely;
  // Every communication search and record reads its attachments: a fixed text, parsed once per connection.
  const filesOfStatement = preparedStatement(
    db,
    'files_of_v1',
    `SELECT id, tenant_id, filename, content_type, size, created_by, created_at, owner, referenced
       FROM files.stored_files WHERE tenant_id = $1 AND referenced AND owner = ANY($2::text[])
      ORDER BY owner, owner_position`,
  );
  let migrated: Promise<void> | null = null;
  const ready = () => (migrated ??= migrateModule(k, 'file_storage', migrations));
  return {
    migrate: ready,
    async put(file, content) {
      await ready();
      return k.transaction().execute(async (trx) => {
        let size = 0;
        let seq = 0;
        await sql`INSERT INTO files.stored_files (id, tenant_id, filename, content_type, size, created_by)
          VALUES (${file.id}, ${file.tenantId}, ${file.filename}, ${file.contentType}, 0, ${file.createdBy})`.execute(
          trx,
        );
        for await (const chunk of rechunk(content)) {
          await sql`INSERT INTO files.file_chunks (file_id, seq, data) VALUES (${file.id}, ${seq++}, ${chunk})`.execute(
            trx,
          );
          size += chunk.length;
        }
        const { rows } = await sql<Row>`UPDATE files.stored_files SET size = ${size} WHERE id = ${file.id}
          RETURNING ${columns}`.execute(trx);
        return toFile(rows[0]!);
      });
    },
    async find(tenantId, ids) {
      if (ids.length === 0) return [];
      await ready();
      const { rows } = await sql<Row>`SELECT ${columns} FROM files.stored_files
        WHERE tenant_id = ${tenantId} AND id = ANY(${sql.val([...ids])}::uuid[])`.execute(k);
      return rows.map(toFile);
    },
    async findAnyTenant(id) {
      await ready();
      const { rows } = await sql<Row>`SELECT ${columns} FROM files.stored_files WHERE id = ${id}`.execute(k);
      return rows[0] ? toFile(rows[0]) : null;
    },
    async *read(file) {
      for (let seq = 0; ; seq++) {
        const { rows } = await sql<{ data: Uint8Array }>`SELECT data FROM files.file_chunks
          WHERE file_id = ${file.id} AND seq = ${seq}`.execute(k);
        if (!rows[0]) return;
        yield rows[0].data;
      }
    },
    async setOwnerFiles(tenantId, owner, fileIds, revision) {
      await ready();
      await k.transaction().execute(async (trx) => {
        await sql`UPDATE files.stored_files SET referenced = false, owner_revision = ${revision},
            unreferenced_since = now()
          WHERE tenant_id = ${tenantId} AND owner = ${owner} AND referenced AND owner_revision <= ${revision}
            AND NOT (id = ANY(${sql.val([...fileIds])}::uuid[]))`.execute(trx);
        if (fileIds.length === 0) return;
        await sql`UPDATE files.stored_files AS f SET owner = ${owner}, referenced = true, owner_revision = ${revision},
            owner_position = x.position
          FROM unnest(${sql.val([...fileIds])}::uuid[]) WITH ORDINALITY AS x(id, position)
          WHERE f.id = x.id AND f.tenant_id = ${tenantId}
            AND (f.owner IS NULL OR (f.owner = ${owner} AND f.owner_revision <= ${revision})
                 OR (f.owner <> ${owner} AND NOT f.referenced))`.execute(trx);
      });
    },
    async filesOf(tenantId, owners) {
      const result = new Map<string, StoredFile[]>();
      if (owners.length === 0) return result;
      await ready();
      const { rows } = await db.pool.query<Row>(filesOfStatement([tenantId, owners]));
      for (const row of rows) {
        const list = result.get(row.owner!) ?? [];
        list.push(toFile(row));
        result.set(row.owner!, list);
      }
      return result;
    },
    async removeUnreferenced(cutoff) {
      await ready();
      const { rows } = await sql<{ id: string }>`DELETE FROM files.stored_files
        WHERE NOT referenced AND unreferenced_since < ${cutoff.toISOString()}::timestamptz RETURNING id`.execute(k);
      return rows.length;
    },
  };
}
