import { Readable } from 'node:stream';
import type { ReadModels } from '@renkei/read-models';
import iconv from 'iconv-lite';
import { sql } from 'kysely';
import type {
  MedicalInstitution,
  MedicalInstitutionExportBody,
  MedicalInstitutionExportColumn,
} from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { runningStatusLabels } from '@renkei/institution-master';
import {
  accountJoin,
  detailColumns,
  fromClause,
  hasReferralFilter,
  referralFigureCondition,
  referralJoin,
  orderBy,
  searchConditions,
  toMedicalInstitution,
  type InstitutionRow,
} from './medical-institutions.queries.ts';

const headers: Record<MedicalInstitutionExportColumn, string> = {
  code: '医療機関コード',
  name: '名称',
  kana: 'カナ',
  running_status: '状態',
  postal_code: '郵便番号',
  address: '所在地',
  tel: '電話番号',
  administrator_name: '管理者',
  facility_type: '施設種別',
  bed_count: '病床数',
  departments: '診療科',
  tags: 'タグ',
  phase: 'フェーズ',
  referral_count: '紹介数',
  comparison_referral_count: '比較期間の紹介数',
  rate_of_referral_change: '紹介数の増減率(%)',
  last_visit_date: '最終訪問日',
  memo_content: 'メモ',
  special_note_content: '特記事項',
};

/** A cell's value: numbers stay numbers (a negative change is data, not a formula to neutralise). */
function cell(r: MedicalInstitution, c: MedicalInstitutionExportColumn): string | number {
  switch (c) {
    case 'running_status':
      return runningStatusLabels[r.running_status];
    case 'facility_type':
      return r.facility_type?.name ?? '';
    case 'departments':
      return r.departments.map((d) => d.name).join('、');
    case 'tags':
      return r.tags.map((t) => t.name).join('、');
    case 'phase':
      return r.phase?.phase_name ?? '';
    case 'rate_of_referral_change':
      // In percent with one decimal, as the column reads on screen (+28.8%), not the raw fraction.
      return r.rate_of_referral_change === null ? '' : Math.round(r.rate_of_referral_change * 1000) / 10;
    default: {
      const v = r[c];
      return v === null || v === undefined ? '' : typeof v === 'number' ? v : String(v);
    }
  }
}

/**
 * One CSV field. Spreadsheet programs run a cell that starts with = + - @ (or a tab / CR) as a
 * formula, so such cells get a leading apostrophe (OWASP "CSV injection").
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

/** A moment as the people who read the CSV live it: Japan time, `YYYY-MM-DD HH:MM` (empty for none). */
export function japanDateTime(value: Date | string | null): string {
  if (value === null) return '';
  const at = typeof value === 'string' ? new Date(value) : value;
  // Japan has no daylight saving time.
  return new Date(at.getTime() + 9 * 3_600_000).toISOString().slice(0, 16).replace('T', ' ');
}

const batchSize = 1000;

/**
 * The whole search result as CSV, produced batch by batch so memory does not grow with the row count:
 * a server-side cursor on Postgres; keyset-free paging on the embedded database, which has one
 * connection and cannot hold a cursor open while other requests run.
 */
export function exportMedicalInstitutions(
  db: Database,
  tenantId: string,
  body: MedicalInstitutionExportBody,
): Readable {
  const columns = body.columns ?? (Object.keys(headers) as MedicalInstitutionExportColumn[]);
  const encode = (text: string) =>
    body.encoding === 'shift_jis' ? iconv.encode(text, 'cp932') : Buffer.from(text, 'utf8');
  const line = (cells: (string | number)[]) =>
    cells.map((v) => (typeof v === 'number' ? String(v) : csvField(v))).join(',') + '\r\n';

  async function* generate(): AsyncGenerator<Buffer> {
    yield encode((body.encoding === 'shift_jis' ? '' : '\ufeff') + line(columns.map((c) => headers[c])));
    const where = await searchConditions(db.typed<ReadModels>(), tenantId, body);
    const query = sql<InstitutionRow>`
      SELECT ${detailColumns(tenantId)}, rf.referral_count, rf.comparison_referral_count
        FROM ${fromClause(tenantId)} ${referralJoin(tenantId, body, 'grouped')} ${accountJoin(tenantId)}
       WHERE ${where} ${hasReferralFilter(body) ? sql`AND ${referralFigureCondition(body)}` : sql``} ORDER BY ${orderBy(body.sort_by, body.sort)}`.compile(
      db.typed<ReadModels>(),
    );
    const toChunk = (rows: InstitutionRow[]) =>
      encode(rows.map((r) => line(columns.map((c) => cell(toMedicalInstitution(r), c)))).join(''));
    if (db.kind === 'postgres') {
      const client = await db.pool.connect();
      try {
        await client.query('BEGIN READ ONLY');
        await client.query(`DECLARE export_cursor NO SCROLL CURSOR FOR ${query.sql}`, [...query.parameters]);
        for (;;) {
          const { rows } = await client.query<InstitutionRow>(`FETCH ${batchSize} FROM export_cursor`);
          if (rows.length === 0) break;
          yield toChunk(rows);
        }
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
      return;
    }
    for (let offset = 0; ; offset += batchSize) {
      const { rows } = await db.pool.query<InstitutionRow>(`${query.sql} LIMIT ${batchSize} OFFSET ${offset}`, [
        ...query.parameters,
      ]);
      if (rows.length === 0) break;
      yield toChunk(rows);
      if (rows.length < batchSize) break;
    }
  }
  return Readable.from(generate());
}
