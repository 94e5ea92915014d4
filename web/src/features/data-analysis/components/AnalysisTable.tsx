import { Anchor, Table, Text } from '@mantine/core';
import { useRouter } from '@tanstack/react-router';
import type { MouseEvent } from 'react';
import type { ExportTable } from '../../../ui/table-export.ts';
import { formatPercent } from '../../../ui/percent.ts';

/** How a column reads on screen; the export keeps the raw figures. */
type ColumnFormat = 'text' | 'count' | 'change' | 'percent' | 'rate';

export interface TableColumn {
  key: string;
  label: string;
  format?: ColumnFormat;
}

// One formatter for every cell: `toLocaleString('ja-JP')` builds a new one per call, which was a
// measurable part of rendering the page's ~1,300 cells.
const counts = new Intl.NumberFormat('ja-JP');

function show(value: string | number | null | undefined, format: ColumnFormat): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'string') return value;
  switch (format) {
    case 'count':
    case 'text':
      return counts.format(value);
    case 'change':
      return `${value > 0 ? '+' : ''}${counts.format(value)}`;
    case 'percent':
      return formatPercent(value);
    case 'rate':
      return formatPercent(value, { signed: true });
    default: {
      const never: never = format;
      return never;
    }
  }
}

const classes = Table.classes;
// A figure and its heading never wrap (squeezed, 「増/減」「紹介件/数」 read as broken words); a name keeps
// room for seven characters a line and wraps beyond; a table still too wide scrolls in its box.
const right = { textAlign: 'right', whiteSpace: 'nowrap' } as const;
const named = { minWidth: '7em' } as const;

/**
 * The table as a panel shows it; `linkKey` names the column whose cell opens the row's institution.
 *
 * The body is plain elements with Mantine's table classes, and its links plain anchors that the table
 * hands to the router: the top page shows about 1,300 cells and 170 institution links at once, and as
 * `Table.Td` and router `Link` components (each a styled box, each link subscribed to the router's state)
 * they were about half a second of the page's rendering on this machine (docs/benchmarks.md,
 * "Issue 13 — 2026-11-29, third session").
 */
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
  const router = useRouter();
  if (table.rows.length === 0)
    return (
      <Text size="sm" c="dimmed" py="md">
        {empty}
      </Text>
    );
  const crmHref = (id: string) => `${router.basepath === '/' ? '' : router.basepath}/crms/${encodeURIComponent(id)}`;
  // A plain click opens the institution inside the app; a modified or middle click is the browser's (new tab).
  const onClick = (event: MouseEvent<HTMLTableElement>) => {
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    const anchor = (event.target as Element).closest<HTMLAnchorElement>('a[data-crm-id]');
    if (!anchor) return;
    event.preventDefault();
    void router.navigate({ to: '/crms/$id', params: { id: anchor.dataset.crmId! } });
  };
  const body = (
    <Table striped highlightOnHover fz="sm" stickyHeader aria-label={table.name} onClick={onClick}>
      <Table.Thead>
        <Table.Tr>
          {columns.map((c) => (
            <Table.Th key={c.key} style={c.format && c.format !== 'text' ? right : named}>
              {c.label}
            </Table.Th>
          ))}
        </Table.Tr>
      </Table.Thead>
      <tbody className={classes.tbody}>
        {table.rows.map((row, i) => {
          const id = row.id;
          return (
            <tr key={String(id ?? i)} className={classes.tr} data-striped="odd" data-hover data-with-row-border>
              {columns.map((c) => {
                const format = c.format ?? 'text';
                const text = show(row[c.key], format);
                return (
                  <td key={c.key} className={classes.td} style={format !== 'text' ? right : undefined}>
                    {c.key === linkKey && typeof id === 'string' ? (
                      <a className={Anchor.classes.root} data-underline="hover" href={crmHref(id)} data-crm-id={id}>
                        {text}
                      </a>
                    ) : (
                      text
                    )}
                  </td>
                );
              })}
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
  // A plain scrolling box rather than ScrollArea: the page's print style lifts its height limit, so paper
  // shows every row and the panel grows with them (ScrollArea's measured height let rows spill over).
  // A box without links takes the focus itself, so a keyboard user can scroll it with the arrow keys; in
  // one with links, Tab reaches them and the arrows scroll from there.
  return maxHeight ? (
    <div
      data-table-scroll
      role="region"
      aria-label={table.name}
      tabIndex={linkKey ? undefined : 0}
      style={{ maxHeight, overflow: 'auto' }}
    >
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
