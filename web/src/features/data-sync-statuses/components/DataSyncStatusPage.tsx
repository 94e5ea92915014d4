import { Alert, Anchor, Badge, Group, Paper, Skeleton, Stack, Table, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import type { DataSyncStatuses } from '@renkei/contracts';
import { formatDateTime } from '../../../app/dates.ts';
import { useServices } from '../../../app/services-context.tsx';
import { ImportStatusBadge } from '../../imports/components/ImportStatusBadge.tsx';
import { UploadStatusBadge } from '../../data-uploads/components/UploadStatusBadge.tsx';
import { dataSyncStatusQueries } from '../data-sync-statuses.queries.ts';
import { importTypeLabel, projectionStatusLabel, readModelLabel } from '../labels.ts';
import { noWrap } from '../../../ui/table-styles.ts';

const number = new Intl.NumberFormat('ja-JP');

/** Spec route /data_sync_statuses: is the data behind the analysis in, and are the screens up to date? */
export function DataSyncStatusPage({ canUpload }: { canUpload: boolean }) {
  const { api } = useServices();
  const status = useQuery(dataSyncStatusQueries.current(api));
  const data = status.data;
  return (
    <Stack gap="md">
      <Group justify="space-between" align="baseline">
        <Title order={2} fz="xl">
          データ連携状況
        </Title>
        {data && (
          <Text size="xs" c="dimmed" data-testid="checked-at">
            {formatDateTime(data.checked_at)} 時点（5秒ごとに更新）
          </Text>
        )}
      </Group>
      {status.isError && (
        <Alert color="red">データ連携状況を読み込めませんでした。しばらくしてから再読み込みしてください。</Alert>
      )}
      <Paper withBorder p="md">
        <Title order={3} fz="md" mb="sm">
          取り込み
        </Title>
        {data ? <ImportTable imports={data.imports} canUpload={canUpload} /> : <Skeleton h={220} />}
      </Paper>
      <Paper withBorder p="md">
        <Title order={3} fz="md" mb="sm">
          医療機関マスタ
        </Title>
        {data ? <MasterSync sync={data.institution_master} /> : <Skeleton h={40} />}
      </Paper>
      <Paper withBorder p="md">
        <Title order={3} fz="md" mb="xs">
          画面への反映
        </Title>
        <Text size="xs" c="dimmed" mb="sm">
          登録・取り込みの結果が各画面に反映されるまでの状況です。「反映待ち」は数秒から数分で解消します。
        </Text>
        {data ? <ProjectionTable projections={data.projections} /> : <Skeleton h={200} />}
      </Paper>
    </Stack>
  );
}

function ImportTable({ imports, canUpload }: { imports: DataSyncStatuses['imports']; canUpload: boolean }) {
  const none = imports.every((i) => i.last === null);
  return (
    <Stack gap="xs">
      {none && (
        <Text size="sm" c="dimmed" data-testid="no-imports">
          まだ取り込みがありません。
          {canUpload ? (
            <>
              紹介リストと様式1（FF1）を
              <Anchor component={Link} to="/data_uploads">
                データアップロード
              </Anchor>
              から取り込むと、分析画面に紹介・入院・手術の件数が表示されます。
            </>
          ) : (
            'データの取り込みは管理者が行います。'
          )}
        </Text>
      )}
      <Table.ScrollContainer minWidth={720}>
        <Table striped data-testid="import-statuses">
          <Table.Thead>
            <Table.Tr style={noWrap}>
              <Table.Th>種類</Table.Th>
              <Table.Th>最終アップロード</Table.Th>
              <Table.Th>ファイル</Table.Th>
              <Table.Th>状態</Table.Th>
              <Table.Th ta="right">取込行</Table.Th>
              <Table.Th ta="right">エラー行</Table.Th>
              <Table.Th>最後に完了した取り込み</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {imports.map(({ import_type, last, last_completed_at }) => (
              <Table.Tr key={import_type} data-import-type={import_type}>
                <Table.Td>{importTypeLabel(import_type)}</Table.Td>
                <Table.Td>{last ? formatDateTime(last.created_at) : '—'}</Table.Td>
                <Table.Td>{last?.filename ?? '取り込みなし'}</Table.Td>
                <Table.Td>{last ? <UploadStatusBadge record={last} /> : '—'}</Table.Td>
                <Table.Td ta="right">{last ? number.format(last.imported_row_count) : '—'}</Table.Td>
                <Table.Td ta="right">{last ? number.format(last.failed_row_count) : '—'}</Table.Td>
                <Table.Td>{last_completed_at ? formatDateTime(last_completed_at) : '—'}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </Table.ScrollContainer>
    </Stack>
  );
}

function MasterSync({ sync }: { sync: DataSyncStatuses['institution_master'] }) {
  if (!sync) return <Text size="sm">医療機関マスタはまだ取り込まれていません（運用担当者が取り込みます）。</Text>;
  return (
    <Group gap="md" data-testid="master-sync">
      <ImportStatusBadge status={sync.status === 'running' ? 'processing' : sync.status} />
      <Text size="sm">
        {formatDateTime(sync.finished_at ?? sync.started_at)}
        {'\u3000'}
        {number.format(sync.total_rows)}件（新規 {number.format(sync.inserted_count)}・更新{' '}
        {number.format(sync.updated_count)}・廃止 {number.format(sync.closed_count)}・エラー{' '}
        {number.format(sync.failed_count)}）
      </Text>
    </Group>
  );
}

function ProjectionTable({ projections }: { projections: DataSyncStatuses['projections'] }) {
  return (
    <Table.ScrollContainer minWidth={560}>
      <Table striped data-testid="projection-statuses">
        <Table.Thead>
          <Table.Tr style={noWrap}>
            <Table.Th>データ</Table.Th>
            <Table.Th>状態</Table.Th>
            <Table.Th ta="right">未反映の件数</Table.Th>
            <Table.Th ta="right">遅れ</Table.Th>
            <Table.Th>最終更新</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {projections.map((p) => (
            <Table.Tr key={p.name} data-projection={p.name} data-status={p.status}>
              <Table.Td>{readModelLabel(p.name)}</Table.Td>
              <Table.Td>
                <Badge color={projectionStatusLabel[p.status].color} variant="light">
                  {projectionStatusLabel[p.status].label}
                </Badge>
              </Table.Td>
              <Table.Td ta="right">{number.format(p.lag_events)}</Table.Td>
              <Table.Td ta="right">{p.lag_seconds > 0 ? `${p.lag_seconds.toFixed(1)} 秒` : '—'}</Table.Td>
              <Table.Td>{formatDateTime(p.updated_at)}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Table.ScrollContainer>
  );
}
