import { Table, Text } from '@mantine/core';
import type { ComponentType, ReactNode } from 'react';
import { useOpenVocs } from '../open-vocs.ts';
import { vocPriorityLabels, vocStatusLabels } from '../vocs.queries.ts';

/**
 * The open partner feedback on the printable partner chart: what is still to be answered when the
 * chart is taken to a visit. Plain text, no colours, so it prints as it shows.
 */
export function PartnerChartVocs({
  institutionId,
  section: Section,
  tableClassName,
}: {
  institutionId: string;
  section: ComponentType<{ title: string; children: ReactNode }>;
  tableClassName?: string | undefined;
}) {
  const open = useOpenVocs(institutionId, 20);
  if (!open) return null;
  return (
    <Section title={`連携先の声（未対応・対応中 ${open.total}件）`}>
      {open.items.length === 0 ? (
        <Text size="sm">なし</Text>
      ) : (
        <Table withTableBorder withColumnBorders className={tableClassName} data-testid="partner-chart-vocs">
          <Table.Thead>
            <Table.Tr>
              <Table.Th>報告日</Table.Th>
              <Table.Th>内容</Table.Th>
              <Table.Th>グループ</Table.Th>
              <Table.Th>優先度</Table.Th>
              <Table.Th>状況</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {open.items.map((v) => (
              <Table.Tr key={v.id}>
                <Table.Td>{v.reported_date.replaceAll('-', '/')}</Table.Td>
                <Table.Td>{v.title}</Table.Td>
                <Table.Td>{v.voc_group?.name ?? ''}</Table.Td>
                <Table.Td>{vocPriorityLabels[v.priority]}</Table.Td>
                <Table.Td>{vocStatusLabels[v.status]}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      {open.total > open.items.length && (
        <Text size="xs" c="dimmed">
          ほか {open.total - open.items.length}件（連携先の声の画面で確認できます）
        </Text>
      )}
    </Section>
  );
}
