import type { FastifyReply } from 'fastify';
import iconv from 'iconv-lite';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { ImportRecord, ImportType } from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';
import { csvField } from '../medical-institutions/medical-institutions.export.ts';

/** The read models that keep one row per import with its progress (import-progress.ts writes both). */
type ImportTable = 'rm.communication_imports' | 'rm.label_value_imports';

type ImportRow = Omit<ImportRecord, 'created_at' | 'created_by'> & {
  created_at: Date;
  created_by: string | null;
  name: string | null;
};

/**
 * A page of a tenant's imports, newest first, each with who started it. `importType` is the column
 * or value the record's `import_type` is read from (a table of one kind of import has no column).
 */
export async function importRecordsPage(
  db: Kysely<ReadModels>,
  options: {
    table: ImportTable;
    importType: RawBuilder<ImportType>;
    tenantId: string;
    query: { page: number; per_page: number };
  },
) {
  const { tenantId, query } = options;
  const table = sql.table(options.table);
  const [counted, page] = await Promise.all([
    sql<{ n: number }>`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = ${tenantId}`.execute(db),
    sql<ImportRow>`
      SELECT i.id, i.filename, i.status, i.error_messages, i.imported_row_count, i.failed_row_count, i.unprocessed_row_count,
             i.abortion_row_number, i.created_at, i.created_by, ${options.importType} AS import_type, a.name
        FROM ${table} i
        LEFT JOIN rm.mi_accounts a ON a.tenant_id = i.tenant_id AND a.account_id = i.created_by
       WHERE i.tenant_id = ${tenantId}
       ORDER BY i.created_at DESC, i.id DESC LIMIT ${query.per_page} OFFSET ${(query.page - 1) * query.per_page}`.execute(
      db,
    ),
  ]);
  const total = counted.rows[0]?.n ?? 0;
  return {
    data: page.rows.map(({ name, created_by, created_at, ...r }): ImportRecord => ({
      ...r,
      created_at: new Date(created_at).toISOString(),
      created_by: created_by ? { id: created_by, name: name ?? '' } : null,
    })),
    meta: {
      total_count: total,
      page: query.page,
      per_page: query.per_page,
      total_pages: Math.ceil(total / query.per_page),
    },
  };
}

const exampleByType: Record<string, string> = {
  text: 'テキスト',
  textarea: 'テキスト',
  integer: '10',
  date: '2026-04-01',
  time: '09:30',
  own_department: '（自院診療科名）',
};

/** What a template shows under a label's header: choices it offers, else a value of its kind. */
export function labelExample(label: {
  component_type: string;
  selections: { label: string }[];
  areas?: { name: string }[];
}): string {
  if (label.component_type === 'checkbox')
    return label.selections
      .map((s) => s.label)
      .slice(0, 2)
      .join('、');
  if (label.component_type === 'select' || label.component_type === 'radio') return label.selections[0]?.label ?? '';
  if (label.component_type === 'area' && label.areas) return label.areas[0]?.name ?? '';
  return exampleByType[label.component_type] ?? '';
}

/** An import template (a header row and an example row) as a download, in the encoding asked for. */
export function templateCsv(
  reply: FastifyReply,
  options: { header: string[]; example: string[]; encoding: 'utf-8' | 'shift_jis'; filename: string },
): string {
  const text = [options.header, options.example].map((r) => r.map(csvField).join(',')).join('\r\n') + '\r\n';
  const sjis = options.encoding === 'shift_jis';
  void reply
    .header('content-type', `text/csv; charset=${sjis ? 'Shift_JIS' : 'UTF-8'}`)
    .header('content-disposition', `attachment; filename="${options.filename}"`);
  // The UTF-8 file starts with a BOM: spreadsheet software reads it as UTF-8 then.
  return (sjis ? iconv.encode(text, 'cp932') : Buffer.from('\ufeff' + text, 'utf8')) as unknown as string;
}
