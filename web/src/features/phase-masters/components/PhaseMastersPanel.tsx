import { Alert, Button, Group, Stack, Table, Text } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';
import { ReorderButtons } from '../../../ui/ReorderButtons.tsx';
import { useOrderedListEditor } from '../../../ui/useOrderedListEditor.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { maxPhaseMasters, toDrafts, useReplacePhaseMasters, validatePhaseDraft } from '../phase-masters.queries.ts';
import { PhaseMasterFormModal } from './PhaseMasterFormModal.tsx';

/**
 * The tenant's phase masters (spec §1: id, name, description), in the order the phase select lists
 * them. Owners add, rename, reorder and delete; members see the list only.
 */
export function PhaseMastersPanel({ canEdit }: { canEdit: boolean }) {
  const { api } = useServices();
  const { data } = useSuspenseQuery(referenceDataQueries.phaseMasters(api));
  const replace = useReplacePhaseMasters();
  // A 409 (another owner saved first) is said in the server's words; the list reloads with their change.
  const onError = useMutationErrorHandler();
  // Stable while the list is unchanged: the open form keeps what is typed across re-renders.
  const phases = useMemo(() => toDrafts(data), [data]);
  const { editing, setEditing, edited, deleting, setDeleting, full, submitForm, move, confirmDelete } =
    useOrderedListEditor({
      drafts: phases,
      replace,
      validate: validatePhaseDraft,
      max: maxPhaseMasters,
      messages: {
        added: 'フェーズを追加しました',
        updated: 'フェーズを更新しました',
        deleted: 'フェーズを削除しました',
        reordered: '並び順を変更しました',
      },
      onError,
      serverFields: { list: 'phase_masters', fields: ['name', 'description'] },
    });

  return (
    <Stack gap="sm" data-testid="phase-masters">
      <Group justify="space-between" align="flex-start">
        <Text size="sm" c="dimmed">
          医療機関との関係の段階です。医療機関ページで設定でき、連携先管理で絞り込めます。上から順に選択肢に並びます。
        </Text>
        {canEdit && (
          <Button
            size="xs"
            onClick={() => setEditing({ index: null })}
            disabled={full || replace.isPending}
            title={full ? `フェーズは${maxPhaseMasters}件まで登録できます` : undefined}
            data-testid="add-phase"
          >
            フェーズを追加
          </Button>
        )}
      </Group>
      {!canEdit && (
        <Alert color="gray" variant="light" data-testid="phase-masters-read-only">
          フェーズの追加・変更・削除はオーナーのみ行えます。
        </Alert>
      )}
      {canEdit && full && (
        <Text size="xs" c="dimmed">
          フェーズは{maxPhaseMasters}件まで登録できます。追加するには、使わなくなったフェーズを削除してください。
        </Text>
      )}
      {phases.length === 0 ? (
        <Text c="dimmed" py="lg" ta="center" data-testid="phase-masters-empty">
          {canEdit
            ? 'フェーズはまだありません。「フェーズを追加」から、医療機関との関係の段階（例: 未接触、初回訪問済、定期訪問、紹介実績あり）を順に登録してください。'
            : 'フェーズはまだありません。オーナーが登録すると、医療機関ページでフェーズを設定できるようになります。'}
        </Text>
      ) : (
        <Table.ScrollContainer minWidth={560}>
          <Table striped data-testid="phase-table">
            <Table.Thead>
              <Table.Tr>
                {canEdit && <Table.Th w={90}>並び順</Table.Th>}
                <Table.Th w={220}>フェーズ名</Table.Th>
                <Table.Th>説明</Table.Th>
                {canEdit && <Table.Th w={140}>操作</Table.Th>}
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {phases.map((p, i) => (
                <Table.Tr key={p.id ?? i} data-phase-name={p.name}>
                  {canEdit && (
                    <Table.Td>
                      <ReorderButtons
                        name={p.name}
                        index={i}
                        count={phases.length}
                        disabled={replace.isPending}
                        onMove={(from, to) => void move(from, to)}
                      />
                    </Table.Td>
                  )}
                  <Table.Td fw={600}>{p.name}</Table.Td>
                  <Table.Td>
                    <Text size="xs" style={{ whiteSpace: 'pre-wrap' }}>
                      {p.description}
                    </Text>
                  </Table.Td>
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
      <PhaseMasterFormModal
        opened={editing !== null}
        phase={edited}
        onClose={() => setEditing(null)}
        onSubmit={submitForm}
      />
      <ConfirmDeleteModal
        opened={deleting !== null}
        title="フェーズを削除"
        message={
          <>
            フェーズ「{deleting !== null ? phases[deleting]?.name : ''}
            」を削除しますか？このフェーズが設定されている医療機関は、フェーズが未設定になります（変更履歴は残ります）。
          </>
        }
        pending={replace.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() => void confirmDelete()}
        testId="confirm-delete-phase"
      />
    </Stack>
  );
}
