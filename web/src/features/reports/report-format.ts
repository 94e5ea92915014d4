import type { CsvEncoding, ReportColumn, ReportKind } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { formatFraction } from '../../ui/percent.ts';
import { type ExportTable, saveCsv } from '../../ui/table-export.ts';
import { reportApi } from './report-kinds.ts';
import { exportRowsPerPage } from './reports.queries.ts';

export type Column = z.infer<typeof ReportColumn>;
export type Cell = string | number | null;

const numericTypes = new Set(['integer', 'number', 'rate']);
export const isNumericColumn = (column: Column) => numericTypes.has(column.value_type);

const integerFormat = new Intl.NumberFormat('ja-JP', { maximumFractionDigits: 0 });
const decimalFormat = new Intl.NumberFormat('ja-JP', { maximumFractionDigits: 2 });

/** A cell as the table shows it: counts with thousands separators, rates as percentages with one decimal. */
export function formatCell(column: Column, value: Cell): string {
  if (value === null || value === '') return '';
  if (typeof value === 'number') {
    if (column.value_type === 'rate') return formatFraction(value);
    return Number.isInteger(value) ? integerFormat.format(value) : decimalFormat.format(value);
  }
  return value;
}

/** The CSV's table: numbers as numbers (rates in percent, one decimal, the column's label saying so). */
export function exportTableOf(
  name: string,
  columns: readonly Column[],
  rows: readonly Record<string, Cell>[],
  totals?: Record<string, Cell>,
): ExportTable {
  const all = totals ? [...rows, { ...totals, [columns[0]?.key ?? '']: '合計' }] : rows;
  return {
    name,
    columns: columns.map((c) => ({ key: c.key, label: c.value_type === 'rate' ? `${c.label}(%)` : c.label })),
    rows: all.map((row) =>
      Object.fromEntries(
        columns.map((c) => {
          const v = row[c.key] ?? null;
          return [c.key, c.value_type === 'rate' && typeof v === 'number' ? Math.round(v * 1000) / 10 : v];
        }),
      ),
    ),
  };
}

const fileName = (name: string) => `${name.replace(/[\\/:*?"<>|]/g, '_').slice(0, 80) || 'report'}.csv`;

/** Every row of a saved report, 1000 at a time, saved as CSV. */
export async function downloadReportCsv(
  api: ApiClient,
  kind: ReportKind,
  definition: { id: string; name: string },
  encoding: CsvEncoding,
): Promise<void> {
  const calls = reportApi(api, kind);
  const first = await calls.results({ body: { definition_id: definition.id, page: 1, per_page: exportRowsPerPage } });
  const rows = [...first.rows];
  for (let page = 2; page <= first.meta.total_pages; page++)
    rows.push(
      ...(await calls.results({ body: { definition_id: definition.id, page, per_page: exportRowsPerPage } })).rows,
    );
  saveTableCsv(exportTableOf(definition.name, first.columns, rows), encoding);
}

export function saveTableCsv(table: ExportTable, encoding: CsvEncoding): void {
  saveCsv(table, encoding, fileName(table.name));
}
