import { Badge, Button, Group, Stack, Table, Tabs, Text, Title } from '@mantine/core';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import type { Email, EmailStatus } from '@renkei/contracts';
import { Suspense, useState } from 'react';
import { toast } from '../../../app/toast.ts';
import { useServices } from '../../../app/services-context.tsx';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { emailQueries, useCopyEmail, useDeleteEmail, type EmailListParams } from '../emails.queries.ts';
import { formatFraction as formatRate } from '../../../ui/percent.ts';
import { ListPagination, type ListPageProps } from '../../../ui/ListPagination.tsx';
import { LazyConfirmDeleteModal as ConfirmDeleteModal } from '../../../ui/lazy-dialogs.ts';

const dateTime = (iso: string) =>
  new Date(iso).toLocaleString('ja-JP', { timeZone: 'Asia/Tokyo', dateStyle: 'medium', timeStyle: 'short' });

function SentRates({ id }: { id: string }) {
  const { api } = useServices();
  const { data } = useQuery(emailQueries.stats(api, id));
  if (!data) return <Text size="sm">…</Text>;
  return (
    <Text size="sm">
      配信 {data.delivered_count}件（{formatRate(data.delivered_rate)}）・開封 {formatRate(data.opened_rate)}・クリック{' '}
      {formatRate(data.clicked_rate)}
    </Text>
  );
}

function TabCount({ status }: { status: EmailStatus }) {
  const { api } = useServices();
  const { data } = useQuery(emailQueries.count(api, status));
  return data === undefined ? null : (
    <Badge size="sm" variant="light" ml={6}>
      {data}
    </Badge>
  );
}

export function EmailsPage({ params, onParamsChange }: ListPageProps<EmailListParams>) {
  const { api } = useServices();
  const navigate = useNavigate();
  const { data: list } = useSuspenseQuery(emailQueries.list(api, params));
  const onError = useMutationErrorHandler();
  const copy = useCopyEmail();
  const remove = useDeleteEmail();
  const [deleting, setDeleting] = useState<Email | null>(null);

  const onCopy = async (email: Email) => {
    try {
      const copied = await copy.mutateAsync({ id: email.id });
      toast.success('メールを複製しました');
      void navigate({ to: '/emails/$id/edit', params: { id: copied.id } });
    } catch (error) {
      onError(error);
    }
  };
  const onDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync({ id: deleting.id });
      toast.success('メールを削除しました');
    } catch (error) {
      onError(error);
    } finally {
      setDeleting(null);
    }
  };

  return (
    <Stack gap="lg">
      <Group justify="space-between">
        <Title order={2} fz="xl">
          HTMLメール
        </Title>
        <ButtonLink to="/emails/new">新規作成</ButtonLink>
      </Group>
      <Tabs
        value={params.status}
        onChange={(v) => onParamsChange({ status: v === 'sent' ? 'sent' : 'unsent', page: 1 })}
      >
        <Tabs.List>
          <Tabs.Tab value="unsent">
            未送信
            <TabCount status="unsent" />
          </Tabs.Tab>
          <Tabs.Tab value="sent">
            送信済み
            <TabCount status="sent" />
          </Tabs.Tab>
        </Tabs.List>
      </Tabs>
      {list.data.length === 0 ? (
        <Text c="dimmed" data-testid="emails-empty">
          {params.status === 'unsent'
            ? '未送信のメールはありません。「新規作成」からメールを作成してください。'
            : '送信済みのメールはありません。未送信のメールを開いて送信してください。'}
        </Text>
      ) : (
        <Table striped highlightOnHover>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>件名</Table.Th>
              <Table.Th>送信先</Table.Th>
              <Table.Th>{params.status === 'sent' ? '送信日時・結果' : '更新日時'}</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {list.data.map((email) => (
              <Table.Tr key={email.id} data-testid="email-row">
                <Table.Td>
                  {email.title}
                  {email.delivery_stopped && (
                    <Stack gap={2} mt={4} data-testid="email-row-stopped">
                      <Badge color="red" variant="light">
                        送信停止中
                      </Badge>
                      <Text size="xs" c="red">
                        {email.delivery_stopped.reason === 'attachment_missing'
                          ? '添付ファイルが見つからないため送信を止めています。'
                          : 'メールサーバーへの送信に失敗したため送信を止めています。'}
                        「レポート」で詳しい内容を確認し、送信を再開できます。
                      </Text>
                    </Stack>
                  )}
                </Table.Td>
                <Table.Td>
                  {email.destination_count}件
                  {email.invalid_destination_count > 0 && (
                    <Text span size="xs" c="red" ml={4}>
                      （無効 {email.invalid_destination_count}件）
                    </Text>
                  )}
                </Table.Td>
                <Table.Td>
                  {email.status === 'sent' && email.sent_at ? (
                    <Stack gap={2}>
                      <Text size="sm">{dateTime(email.sent_at)}</Text>
                      <SentRates id={email.id} />
                    </Stack>
                  ) : (
                    dateTime(email.updated_at)
                  )}
                </Table.Td>
                <Table.Td>
                  <Group gap="xs" justify="flex-end" wrap="nowrap">
                    {email.status === 'sent' ? (
                      <ButtonLink
                        size="xs"
                        variant="light"
                        to="/emails/$id/reports"
                        params={{ id: email.id }}
                        search={{ page: 1 }}
                      >
                        レポート
                      </ButtonLink>
                    ) : (
                      <ButtonLink size="xs" variant="light" to="/emails/$id/edit" params={{ id: email.id }}>
                        編集
                      </ButtonLink>
                    )}
                    <Button size="xs" variant="default" onClick={() => void onCopy(email)} loading={copy.isPending}>
                      複製
                    </Button>
                    {email.status === 'unsent' && (
                      <Button size="xs" variant="subtle" color="red" onClick={() => setDeleting(email)}>
                        削除
                      </Button>
                    )}
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      )}
      <ListPagination
        totalPages={list.meta.total_pages}
        value={list.meta.page}
        onChange={(page) => onParamsChange({ page })}
        aria-label="ページ"
      />
      <Suspense fallback={null}>
        {deleting && (
          <ConfirmDeleteModal
            opened
            title="メールを削除"
            message={<>メール「{deleting.title}」を削除しますか？</>}
            confirmLabel="削除する"
            pending={remove.isPending}
            onClose={() => setDeleting(null)}
            onConfirm={() => void onDelete()}
          />
        )}
      </Suspense>
    </Stack>
  );
}
