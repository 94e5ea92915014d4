import { Alert as Notice, Badge, Button, Group, Stack, Table, Text, Title, Tooltip } from '@mantine/core';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { alertConditionSummary } from '@renkei/contracts/client';
import type { AlertCondition } from '@renkei/contracts';
import { lazy, Suspense, useRef, useState } from 'react';
import { formatDate } from '../../../app/dates.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { isApiError } from '../../../api/api-errors.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { LazyConfirmDeleteModal as ConfirmDeleteModal } from '../../../ui/lazy-dialogs.ts';
import { ListPagination, type ListPageProps } from '../../../ui/ListPagination.tsx';
import { noWrap } from '../../../ui/table-styles.ts';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import {
  alertQueries,
  allTagsQuery,
  useCreateAlertCondition,
  useDeleteAlertCondition,
  type AlertConditionInputValues,
} from '../alerts.queries.ts';

// The dialog (and its inputs) loads when first opened, not with the list.
const AlertConditionFormModal = lazy(() =>
  import('./AlertConditionFormModal.tsx').then((m) => ({ default: m.AlertConditionFormModal })),
);

export interface AlertConditionsParams {
  page: number;
}

export const alertConditionsQueryOf = (p: AlertConditionsParams) => ({ page: p.page, per_page: 20 });

const typeLabels = { referral: '紹介', communication: '訪問' } as const;

/** The tenant's alert conditions: everyone reads them, owners create and delete them. */
export function AlertConditionsPage({
  params,
  onParamsChange,
  isOwner,
}: ListPageProps<AlertConditionsParams> & { isOwner: boolean }) {
  const { api } = useServices();
  const { data: list } = useSuspenseQuery(alertQueries.conditions(api, alertConditionsQueryOf(params)));
  // Tag names for the summaries: every tag of the tenant (all pages).
  const tags = useQuery(allTagsQuery(api));
  const tagName = new Map((tags.data ?? []).map((t) => [t.id, t.name]));
  const create = useCreateAlertCondition();
  const remove = useDeleteAlertCondition();
  const onError = useMutationErrorHandler();
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<AlertCondition | null>(null);
  // One Idempotency-Key per opened dialog: a retry after a timeout never makes a second condition.
  const createKey = useRef(crypto.randomUUID());

  const save = async (body: AlertConditionInputValues) => {
    try {
      await create.mutateAsync({ body, idempotencyKey: createKey.current });
      toast.success('アラート条件を作成しました。前月分の集計結果はまもなくアラート一覧に表示されます');
      setCreating(false);
    } catch (error) {
      // A 422 stays in the dialog, on its fields; the rest closes it.
      if (!isApiError(error) || error.status !== 422) {
        setCreating(false);
        onError(error);
      }
      throw error;
    }
  };

  const confirmDelete = async () => {
    if (!deleting) return;
    try {
      await remove.mutateAsync(deleting.id);
      toast.success('アラート条件を削除しました');
    } catch (error) {
      onError(error);
    } finally {
      setDeleting(null);
    }
  };

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2} size="h3">
          アラート条件
        </Title>
        <Group gap="xs">
          <ButtonLink to="/alerts" search={{ page: 1, status: 'open' }} variant="default">
            アラート一覧
          </ButtonLink>
          {isOwner && (
            <Button
              onClick={() => {
                createKey.current = crypto.randomUUID();
                setCreating(true);
              }}
            >
              新規作成
            </Button>
          )}
        </Group>
      </Group>
      {!isOwner && (
        <Text size="sm" c="dimmed">
          アラート条件の作成・削除はオーナーのみ行えます。
        </Text>
      )}
      {list.data.length === 0 ? (
        <Stack gap="xs" data-testid="alert-conditions-empty">
          <Text c="dimmed">アラート条件はまだありません。</Text>
          <Text c="dimmed" size="sm">
            アラート条件を作成すると、紹介が減った紹介元やしばらく訪問していない紹介元が毎月自動で集計され、
            アラート一覧に表示されます。
            {isOwner ? '「新規作成」から作成してください。' : 'オーナーに作成を依頼してください。'}
          </Text>
        </Stack>
      ) : (
        <Table.ScrollContainer minWidth={720}>
          <Table verticalSpacing="sm" data-testid="alert-conditions-table">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>アラート名</Table.Th>
                <Table.Th style={noWrap}>種類</Table.Th>
                <Table.Th>条件</Table.Th>
                <Table.Th style={noWrap}>作成日</Table.Th>
                {isOwner && <Table.Th />}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {list.data.map((c) => (
                <Table.Tr key={c.id}>
                  <Table.Td>
                    <Group gap="xs">
                      <Text fw={500} size="sm">
                        {c.name}
                      </Text>
                      {c.has_invalid && (
                        <Tooltip
                          label="削除されたタグまたはエリアを含むため実行されません。条件を作り直してください。"
                          multiline
                          w={260}
                        >
                          <Badge color="orange" variant="light">
                            無効な条件
                          </Badge>
                        </Tooltip>
                      )}
                    </Group>
                  </Table.Td>
                  <Table.Td style={noWrap}>{typeLabels[c.type]}</Table.Td>
                  <Table.Td>
                    <Text size="sm">
                      {alertConditionSummary(c.triggers, c.filters, {
                        tags: c.filters.tag_ids.flatMap((id) => tagName.get(id) ?? []),
                      })}
                    </Text>
                  </Table.Td>
                  <Table.Td style={noWrap}>{formatDate(c.created_date)}</Table.Td>
                  {isOwner && (
                    <Table.Td style={noWrap}>
                      <Button
                        size="compact-sm"
                        variant="subtle"
                        color="red"
                        aria-label={`「${c.name}」を削除`}
                        onClick={() => setDeleting(c)}
                      >
                        削除
                      </Button>
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      {list.data.some((c) => c.has_invalid) && (
        <Notice color="orange" variant="light" title="無効な条件があります">
          タグやエリアが削除された条件は実行されません。削除して作り直してください。
        </Notice>
      )}
      <ListPagination
        totalPages={list.meta.total_pages}
        value={list.meta.page}
        onChange={(page) => onParamsChange({ page })}
        aria-label="ページ"
      />
      <Suspense fallback={null}>
        {creating && <AlertConditionFormModal opened onClose={() => setCreating(false)} onSubmit={save} />}
        {deleting && (
          <ConfirmDeleteModal
            opened
            title="アラート条件を削除"
            message={<>アラート条件「{deleting.name}」を削除しますか？</>}
            detail="これまでのアラートは残ります。今後この条件での集計は行われません。"
            confirmLabel="削除する"
            pending={remove.isPending}
            onClose={() => setDeleting(null)}
            onConfirm={() => void confirmDelete()}
          />
        )}
      </Suspense>
    </Stack>
  );
}
