import { Badge, Group, Table, UnstyledButton } from '@mantine/core';
import { FlexRender, tableFeatures, useTable, type ColumnDef } from '@tanstack/react-table';
import type { MedicalInstitution, MedicalInstitutionSortKey } from '@renkei/contracts';
import { useMemo, type ReactNode } from 'react';
import { formatDate } from '../../../app/dates.ts';
import { columnLabel, formatRate, sortKeyOf } from '../labels-ja.ts';
import { nextSortDirection } from '../search-state.ts';
import type { InstitutionColumnKey } from '../search-state.ts';
import classes from './InstitutionTable.module.css';
import { RunningStatusBadge } from './RunningStatusBadge.tsx';
import { AnchorLink } from './router-links.tsx';

const features = tableFeatures({});

const cellOf: Record<InstitutionColumnKey, (mi: MedicalInstitution) => ReactNode> = {
  name: (mi) => (
    <AnchorLink to="/crms/$id" params={{ id: mi.id }} fw={600} display="inline-block" data-testid="institution-link">
      {mi.name}
    </AnchorLink>
  ),
  address: (mi) => mi.address,
  running_status: (mi) => <RunningStatusBadge status={mi.running_status} />,
  facility_type: (mi) => mi.facility_type?.name ?? '',
  tags: (mi) => (
    <Group gap={4}>
      {mi.tags.map((t) => (
        <Badge key={t.id} variant="outline" size="sm">
          {t.name}
        </Badge>
      ))}
    </Group>
  ),
  phase: (mi) => mi.phase?.phase_name ?? '',
  referral_count: (mi) => mi.referral_count ?? '',
  rate_of_referral_change: (mi) => formatRate(mi.rate_of_referral_change),
  last_visit_date: (mi) => formatDate(mi.last_visit_date),
  code: (mi) => mi.code,
  kana: (mi) => mi.kana,
  tel: (mi) => mi.tel ?? '',
  departments: (mi) => mi.departments.map((d) => d.name).join('、'),
  comparison_referral_count: (mi) => mi.comparison_referral_count ?? '',
};

/** Short values that read wrong when broken over lines (a date, a count, a badge). */
const noWrapColumns = new Set<InstitutionColumnKey>([
  'running_status',
  'facility_type',
  'phase',
  'referral_count',
  'rate_of_referral_change',
  'last_visit_date',
  'code',
  'tel',
  'comparison_referral_count',
]);

const classOf = (key: string): string | undefined =>
  key === 'name'
    ? classes.name
    : key === 'address'
      ? classes.address
      : noWrapColumns.has(key as InstitutionColumnKey)
        ? classes.nowrap
        : undefined;

export interface InstitutionTableProps {
  rows: MedicalInstitution[];
  columns: InstitutionColumnKey[];
  sortBy: MedicalInstitutionSortKey;
  sort: 'asc' | 'desc';
  onSort: (sortBy: MedicalInstitutionSortKey, sort: 'asc' | 'desc') => void;
  /** The rows are the previous search's, shown while the new one loads. */
  busy?: boolean;
}

export function InstitutionTable({ rows, columns, sortBy, sort, onSort, busy = false }: InstitutionTableProps) {
  // Headers are plain labels here and the sort buttons are rendered by the table below, one element per
  // column across sorts: a header function made anew per sort remounted its button, and the focus of a
  // keyboard user who sorted with Enter fell to the page's body.
  const defs = useMemo<ColumnDef<typeof features, MedicalInstitution>[]>(
    () =>
      columns.map((key) => ({
        id: key,
        header: columnLabel[key],
        cell: ({ row }) => cellOf[key](row.original),
      })),
    [columns],
  );
  const table = useTable({ features, columns: defs, data: rows });

  return (
    <div className={classes.scroller} aria-busy={busy} data-testid="institution-table-scroller">
      <Table striped highlightOnHover stickyHeader className={classes.table} data-testid="institution-table">
        <Table.Thead>
          {table.getHeaderGroups().map((group) => (
            <Table.Tr key={group.id}>
              {group.headers.map((header) => {
                const key = header.column.id as InstitutionColumnKey;
                const sortKey = sortKeyOf[key];
                const active = sortKey !== undefined && sortKey === sortBy;
                return (
                  <Table.Th
                    key={header.id}
                    className={classOf(key)}
                    style={{ whiteSpace: 'nowrap' }}
                    aria-sort={sortKey ? (active ? (sort === 'asc' ? 'ascending' : 'descending') : 'none') : undefined}
                  >
                    {sortKey ? (
                      <UnstyledButton
                        fw={600}
                        fz="sm"
                        onClick={() => onSort(sortKey, nextSortDirection(sortKey, { sort_by: sortBy, sort }))}
                        aria-label={`${columnLabel[key]}で並べ替え`}
                        data-testid={`sort-${key}`}
                      >
                        {columnLabel[key]} {active ? (sort === 'asc' ? '▲' : '▼') : '⇅'}
                      </UnstyledButton>
                    ) : (
                      columnLabel[key]
                    )}
                  </Table.Th>
                );
              })}
            </Table.Tr>
          ))}
        </Table.Thead>
        <Table.Tbody>
          {table.getRowModel().rows.map((row) => (
            <Table.Tr key={row.id} data-institution-name={row.original.name}>
              {row.getAllCells().map((cell) => (
                <Table.Td key={cell.id} className={classOf(cell.column.id)} data-column={cell.column.id}>
                  <FlexRender cell={cell} />
                </Table.Td>
              ))}
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </div>
  );
}
