import { Table, Text } from '@mantine/core';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import type { ExportTable } from '../table-export.ts';

/** How a column reads on screen; the export keeps the raw figures. */
type ColumnFormat = 'text' | 'count' | 'change' | 'percent' | 'rate';

export interface TableColumn {
  key: string;
  label: string;
  format?: ColumnFormat;
}

function show(value: string | number | null | undefined, format: ColumnFormat): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'string') return value;
  switch (format) {
    case 'count':
    case 'text':
      return value.toLocaleString('ja-JP');
    case 'change':
      return `${value > 0 ? '+' : ''}${value.toLocaleString('ja-JP')}`;
    case 'percent':
      return `${value.toFixed(1)}%`;
    case 'rate':
      return `${value > 0 ? '+' : ''}${value.toFixed(1)}%`;
    default: {
      const never: never = format;
      return never;
    }
  }
}

/** The table as a panel shows it; `linkKey` names the column whose cell opens the row's institution. */
export function AnalysisTable({
  columns,
  table,
  linkKey,
  maxHeight,
  empty = 'この条件に該当するデータはありません。',
}: {
  columns: TableColumn[];
  table: ExportTable;
  linkKey?: string;
  maxHeight?: number;
  empty?: string;
}) {
  if (table.rows.length === 0)
    return (
      <Text size="sm" c="dimmed" py="md">
        {empty}
      </Text>
    );
  const body = (
    <Table striped highlightOnHover fz="sm" stickyHeader aria-label={table.name}>
      <Table.Thead>
        <Table.Tr>
          {columns.map((c) => (
            <Table.Th key={c.key} ta={c.format && c.format !== 'text' ? 'right' : undefined}>
              {c.label}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {table.rows.map((row, i) => (
          <Table.Tr key={String(row.id ?? i)}>
            {columns.map((c) => {
              const format = c.format ?? 'text';
              const text = show(row[c.key], format);
              const id = row.id;
              return (
                <Table.Td key={c.key} ta={format !== 'text' ? 'right' : undefined}>
                  {c.key === linkKey && typeof id === 'string' ? (
                    <AnchorLink to="/crms/$id" params={{ id }} size="sm">
                      {text}
                    </AnchorLink>
                  ) : (
                    text
                  )}
                </Table.Td>
              );
            })}
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
  // A plain scrolling box rather than ScrollArea: the page's print style lifts its height limit, so paper
  // shows every row and the panel grows with them (ScrollArea's measured height let rows spill over).
  return maxHeight ? (
    <div data-table-scroll style={{ maxHeight, overflowY: 'auto' }}>
      {body}
    </div>
  ) : (
    body
  );
}

/** The export of a table: its name, the columns shown, the rows with their raw figures. */
export function exportOf(name: string, columns: TableColumn[], rows: ExportTable['rows']): ExportTable {
  return { name, columns: columns.map(({ key, label }) => ({ key, label })), rows };
}
