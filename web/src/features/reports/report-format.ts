import type { CsvEncoding, ReportColumn, ReportKind } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { formatFraction } from '../../ui/percent.ts';
import { type ExportTable, saveCsv, saveFile, xlsxBytes } from '../../ui/table-export.ts';
import { reportApi } from './report-kinds.ts';
import { exportRowsPerPage } from './reports.queries.ts';

export type Column = z.infer<typeof ReportColumn>;
export type Cell = string | number | null;

const numericTypes = new Set(['integer', 'number', 'rate']);
export const isNumericColumn = (column: Column) => numericTypes.has(column.value_type);

const integerFormat = new Intl.NumberFormat('ja-JP', { maximumFractionDigits: 0 });
const decimalFormat = new Intl.NumberFormat('ja-JP', { maximumFractionDigits: 2 });

/**
 * A cell as the table shows it: counts with thousands separators, rates as percentages with one decimal,
 * dates as the rest of the app writes them (2026/05/27; the CSV keeps the ISO date, which Excel reads).
 */
export function formatCell(column: Column, value: Cell): string {
  if (value === null || value === '') return '';
  if (column.value_type === 'date' && typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value))
    return value.replaceAll('-', '/');
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

/** A report file's format: CSV in either encoding, or an Excel workbook. */
export type ReportFileFormat = CsvEncoding | 'xlsx';

const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
const fileName = (name: string, extension: string) =>
  `${name.replace(/[\\/:*?"<>|]/g, '_').slice(0, 80) || 'report'}.${extension}`;

/** Every row of a saved report, 1000 at a time, as the export's table. */
async function reportTable(
  api: ApiClient,
  kind: ReportKind,
  definition: { id: string; name: string },
): Promise<ExportTable> {
  const calls = reportApi(api, kind);
  const first = await calls.results({ body: { definition_id: definition.id, page: 1, per_page: exportRowsPerPage } });
  const rows = [...first.rows];
  for (let page = 2; page <= first.meta.total_pages; page++)
    rows.push(
      ...(await calls.results({ body: { definition_id: definition.id, page, per_page: exportRowsPerPage } })).rows,
    );
  return exportTableOf(definition.name, first.columns, rows);
}

/** Every row of a saved report, saved as CSV or Excel. */
export async function downloadReport(
  api: ApiClient,
  kind: ReportKind,
  definition: { id: string; name: string },
  format: ReportFileFormat,
): Promise<void> {
  await saveReportTable(await reportTable(api, kind, definition), format);
}

/**
 * Saves a report's table. The workbook keeps text as text: a 医療機関コード of 北海道–栃木 (0112345678)
 * keeps its leading zero, which Excel strips when it opens the same code from a CSV.
 */
export async function saveReportTable(table: ExportTable, format: ReportFileFormat): Promise<void> {
  if (format === 'xlsx') saveFile(await xlsxBytes(table), fileName(table.name, 'xlsx'), xlsxType);
  else saveCsv(table, format, fileName(table.name, 'csv'));
}
