import { Badge, Group, Pagination, Paper, SimpleGrid, Stack, Table, Text, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import { useServices } from '../../../app/services-context.tsx';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { emailQueries } from '../emails.queries.ts';
import { formatRate } from './format.ts';

const Flag = ({ on }: { on: boolean }) =>
  on ? (
    <Badge color="teal" variant="light">
      済
    </Badge>
  ) : (
    <Text c="dimmed" size="sm">
      —
    </Text>
  );

function Figure({ label, value, rate }: { label: string; value: number; rate?: number | null }) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fz="xl" fw={700} data-testid={`email-stat-${label}`}>
        {value}
        {rate !== undefined && (
          <Text span size="sm" c="dimmed" ml={6}>
            {formatRate(rate)}
          </Text>
        )}
      </Text>
    </Paper>
  );
}

export function EmailReportsPage({
  id,
  page,
  onPageChange,
}: {
  id: string;
  page: number;
  onPageChange: (page: number) => void;
}) {
  const { api } = useServices();
  const { data: email } = useSuspenseQuery(emailQueries.detail(api, id));
  const { data: stats } = useSuspenseQuery(emailQueries.stats(api, id));
  const { data: reports } = useSuspenseQuery(emailQueries.reports(api, id, page));
  return (
    <Stack gap="lg">
      <Group justify="space-between">
        <Title order={2} fz="xl">
          配信レポート：{email.title}
        </Title>
        <ButtonLink variant="default" to="/emails" search={{ status: 'sent', page: 1, per_page: 20 }}>
          一覧へ戻る
        </ButtonLink>
      </Group>
      <SimpleGrid cols={{ base: 2, sm: 5 }}>
        <Figure label="送信先" value={stats.destination_count} />
        <Figure label="無効" value={stats.invalid_destination_count} />
        <Figure label="配信" value={stats.delivered_count} rate={stats.delivered_rate} />
        <Figure label="開封" value={stats.opened_count} rate={stats.opened_rate} />
        <Figure label="クリック" value={stats.clicked_count} rate={stats.clicked_rate} />
      </SimpleGrid>
      <Text size="xs" c="dimmed">
        配信はメールサーバーが受け付けたことを表します。開封率・クリック率は配信数に対する割合です（テスト送信は含みません）。
      </Text>
      <Table striped>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>メールアドレス</Table.Th>
            <Table.Th>氏名</Table.Th>
            <Table.Th>医療機関</Table.Th>
            <Table.Th>配信</Table.Th>
            <Table.Th>開封</Table.Th>
            <Table.Th>クリック</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {reports.data.map((r) => (
            <Table.Tr key={r.id} data-testid="email-report-row">
              <Table.Td>{r.email_address}</Table.Td>
              <Table.Td>{r.name ?? ''}</Table.Td>
              <Table.Td>{r.medical_institution?.name ?? ''}</Table.Td>
              <Table.Td>
                <Flag on={r.delivered} />
              </Table.Td>
              <Table.Td>
                <Flag on={r.opened} />
              </Table.Td>
              <Table.Td>
                <Flag on={r.clicked} />
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
      {reports.meta.total_pages > 1 && (
        <Pagination total={reports.meta.total_pages} value={page} onChange={onPageChange} aria-label="ページ" />
      )}
    </Stack>
  );
}
