import { Table, Text } from '@mantine/core';
import { noWrap } from '../../../ui/table-styles.ts';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';
import { formatCell, isNumericColumn, type Cell, type Column } from '../report-format.ts';
import classes from './ReportGrid.module.css';

/**
 * The columns and rows a report answers, as a table: numbers right-aligned. With `linkInstitutions` the
 * institution's name (else the first column) links to its CRM page; `totals` closes it with a 合計 row.
 */
export function ReportGrid({
  columns,
  rows,
  totals,
  linkInstitutions = false,
  testId,
  label = 'レポートの表',
}: {
  columns: readonly Column[];
  rows: readonly Record<string, Cell>[];
  totals?: Record<string, Cell>;
  linkInstitutions?: boolean;
  testId?: string;
  /** The scrolling box's name, for a keyboard user who scrolls it (it is a Tab stop of its own). */
  label?: string;
}) {
  const linkKey = columns.some((c) => c.key === 'medical_institution_name')
    ? 'medical_institution_name'
    : columns[0]?.key;
  return (
    <Table.ScrollContainer
      type="native"
      className={classes.box}
      tabIndex={0}
      role="region"
      aria-label={label}
      minWidth={Math.min(2400, Math.max(600, columns.length * 120))}
    >
      <Table verticalSpacing="xs" striped withTableBorder stickyHeader className={classes.table} data-testid={testId}>
        <Table.Thead>
          <Table.Tr>
            {columns.map((c, i) => (
              // Text columns keep a readable width: institution names would otherwise wrap per character.
              <Table.Th
                key={c.key}
                className={i === 0 ? classes.first : undefined}
                ta={isNumericColumn(c) ? 'right' : undefined}
                style={isNumericColumn(c) ? noWrap : { ...noWrap, minWidth: 160 }}
              >
                {c.label}
              </Table.Th>
            ))}
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {rows.map((row, i) => (
            <Table.Tr key={typeof row.id === 'string' ? row.id : i} data-testid="report-row">
              {columns.map((c, at) => {
                const text = formatCell(c, row[c.key] ?? null);
                const linked = linkInstitutions && c.key === linkKey && typeof row.id === 'string';
                return (
                  <Table.Td
                    key={c.key}
                    className={at === 0 ? classes.first : undefined}
                    ta={isNumericColumn(c) ? 'right' : undefined}
                    style={isNumericColumn(c) ? noWrap : undefined}
                  >
                    {linked ? (
                      <AnchorLink to="/crms/$id" params={{ id: row.id as string }} size="sm">
                        {text || '（名称不明）'}
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
        {totals && (
          <Table.Tfoot>
            <Table.Tr data-testid="report-totals">
              {columns.map((c, i) => (
                <Table.Td
                  key={c.key}
                  className={i === 0 ? classes.first : undefined}
                  ta={isNumericColumn(c) ? 'right' : undefined}
                  fw={700}
                >
                  {i === 0 && (totals[c.key] ?? null) === null ? '合計' : formatCell(c, totals[c.key] ?? null)}
                </Table.Td>
              ))}
            </Table.Tr>
          </Table.Tfoot>
        )}
      </Table>
      {rows.length === 0 && (
        <Text c="dimmed" size="sm" ta="center" py="md">
          条件に合う行はありません
        </Text>
      )}
    </Table.ScrollContainer>
  );
}
