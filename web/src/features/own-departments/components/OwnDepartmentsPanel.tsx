import { Alert, Button, Group, Stack, Table, Text } from '@mantine/core';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';
import { ReorderButtons } from '../../../ui/ReorderButtons.tsx';
import { useOrderedListEditor } from '../../../ui/useOrderedListEditor.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import {
  maxOwnDepartments,
  toDrafts,
  useReplaceOwnDepartments,
  validateOwnDepartmentDraft,
} from '../own-departments.queries.ts';
import { OwnDepartmentFormModal } from './OwnDepartmentFormModal.tsx';

/**
 * The server's message says to reload first; the screen has already reloaded the list by the time
 * the toast shows, so it says that instead.
 */
export const ownDepartmentsConflictMessage =
  '他のユーザーが自院の診療科を変更しました。最新の一覧を読み込みましたので、もう一度操作してください。';

/**
 * The tenant's own hospital departments (自院診療科), in the order every own-department select lists
 * them. Owners add, rename, reorder and delete; members see the list only.
 */
export function OwnDepartmentsPanel({ canEdit }: { canEdit: boolean }) {
  const { api } = useServices();
  const { data } = useSuspenseQuery(referenceDataQueries.ownDepartments(api));
  // Only to name the master department in the table: the list shows without it (the code stands in).
  const masters = useQuery(referenceDataQueries.departments(api));
  const replace = useReplaceOwnDepartments();
  // A 409 (another owner saved first) says so in a toast; the list reloads with their change.
  const onError = useMutationErrorHandler({ conflictMessage: ownDepartmentsConflictMessage });
  // Stable while the list is unchanged: the open form keeps what is typed across re-renders.
  const departments = useMemo(() => toDrafts(data), [data]);
  const masterNames = useMemo(() => new Map((masters.data ?? []).map((d) => [d.id, d.name])), [masters.data]);
  const { editing, setEditing, edited, deleting, setDeleting, full, submitForm, move, confirmDelete } =
    useOrderedListEditor({
      drafts: departments,
      replace,
      validate: validateOwnDepartmentDraft,
      max: maxOwnDepartments,
      messages: {
        added: '自院診療科を作成しました',
        updated: '自院診療科を更新しました',
        deleted: '自院診療科を削除しました',
        reordered: '並び順を変更しました',
      },
      onError,
      serverFields: { list: 'own_departments', fields: ['name', 'department_id'] },
    });

  const masterName = (id: string | null) => (id === null ? '—' : (masterNames.get(id) ?? id));

  return (
    <Stack gap="sm" data-testid="own-departments">
      <Group justify="space-between" align="flex-start" wrap="nowrap">
        <Stack gap={4}>
          <Text size="sm" c="dimmed">
            自院の診療科です。データ分析の自院診療科別の集計と絞り込み、紹介セグメントの除外設定、「自院診療科」タイプのラベルの選択肢に使われ、上から順に並びます。
          </Text>
          <Text size="sm" c="dimmed" data-testid="own-departments-matching">
            紹介データの紹介先診療科と逆紹介データの自院診療科は、この診療科名と照合して対応付けられます（一致しない行も取り込まれ、「未設定」として集計されます）。診療科を追加したり名前を変えたりすると、取り込み済みで「未設定」の行も名前で対応付けられ、しばらくすると集計に反映されます。
          </Text>
        </Stack>
        {canEdit && (
          <Button
            size="xs"
            onClick={() => setEditing({ index: null })}
            disabled={full || replace.isPending}
            title={full ? `自院診療科は${maxOwnDepartments}件まで登録できます` : undefined}
            style={{ flexShrink: 0 }}
            data-testid="add-own-department"
          >
            新規作成
          </Button>
        )}
      </Group>
      {!canEdit && (
        <Alert color="gray" variant="light" data-testid="own-departments-read-only">
          自院診療科の追加・変更・削除はオーナーのみ行えます。
        </Alert>
      )}
      {canEdit && full && (
        <Text size="xs" c="dimmed">
          自院診療科は{maxOwnDepartments}
          件まで登録できます。追加するには、使わなくなった診療科を削除してください。
        </Text>
      )}
      {departments.length === 0 ? (
        <Text c="dimmed" py="lg" ta="center" data-testid="own-departments-empty">
          {canEdit
            ? '自院の診療科はまだ登録されていません。「新規作成」から追加すると、紹介データの紹介先診療科がこの名前で対応付けられます。'
            : '自院の診療科はまだ登録されていません。オーナーが登録すると、紹介データの紹介先診療科がこの名前で対応付けられます。'}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table striped data-testid="own-department-table">
            <Table.Thead>
              <Table.Tr>
                {canEdit && <Table.Th w={90}>順番</Table.Th>}
                <Table.Th>診療科名</Table.Th>
                <Table.Th w={220}>標準診療科</Table.Th>
                {canEdit && <Table.Th w={140}>操作</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {departments.map((d, i) => (
                <Table.Tr key={d.id ?? i} data-own-department-name={d.name}>
                  {canEdit && (
                    <Table.Td>
                      <ReorderButtons
                        name={d.name}
                        index={i}
                        count={departments.length}
                        disabled={replace.isPending}
                        onMove={(from, to) => void move(from, to)}
                      />
                    </Table.Td>
                  )}
                  <Table.Td fw={600}>{d.name}</Table.Td>
                  <Table.Td>{masterName(d.department_id)}</Table.Td>
                  {canEdit && (
                    <Table.Td>
                      <EditDeleteButtons onEdit={() => setEditing({ index: i })} onDelete={() => setDeleting(i)} />
                    </Table.Td>
                  )}
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
        </Table.ScrollContainer>
      )}
      <OwnDepartmentFormModal
        opened={editing !== null}
        department={edited}
        onClose={() => setEditing(null)}
        onSubmit={submitForm}
      />
      <ConfirmDeleteModal
        opened={deleting !== null}
        title="自院診療科を削除"
        message={<>自院診療科「{deleting !== null ? departments[deleting]?.name : ''}」を削除しますか？</>}
        detail={
          // What the server does: the referral data's rows are matched again by name (the referrals
          // projection); every other reference keeps the deleted id, so say where it shows as unset.
          <>
            この診療科に対応付けられた取り込み済みの紹介・逆紹介データは削除されず、同じ名前の診療科がほかになければ「未設定」として集計されます（同じ名前で作り直すと、また対応付けられます）。「自院診療科」タイプのラベルの値は空欄になり、次に編集するときに選び直しが必要です。アカウントの所属診療科や紹介セグメントの除外設定からは自動では外れません。
          </>
        }
        pending={replace.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() => void confirmDelete()}
        testId="confirm-delete-own-department"
      />
    </Stack>
  );
}
