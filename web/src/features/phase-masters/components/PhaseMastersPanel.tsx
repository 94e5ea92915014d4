import { Alert, Button, Group, Stack, Table, Text } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';
import { ReorderButtons } from '../../../ui/ReorderButtons.tsx';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import {
  maxPhaseMasters,
  toDrafts,
  useReplacePhaseMasters,
  validatePhaseDraft,
  type PhaseMasterDraft,
} from '../phase-masters.queries.ts';
import { PhaseMasterFormModal, type PhaseFormErrors } from './PhaseMasterFormModal.tsx';

/** The server names fields of the whole list (`phase_masters.2.name`); the form shows those of its row. */
function rowErrors(error: unknown, index: number): PhaseFormErrors {
  const out: PhaseFormErrors = {};
  if (!isApiError(error)) return out;
  for (const e of error.errors) {
    const m = /^phase_masters\.(\d+)\.(name|description)$/.exec(e.field);
    if (m && Number(m[1]) === index) out[m[2] as 'name' | 'description'] ??= e.message;
  }
  // A list-level refusal (too many phases) has no row field: show it on the name.
  if (!out.name && !out.description && error.errors[0]) out.name = error.errors[0].message;
  return out;
}

/**
 * The tenant's phase masters (spec §1: id, name, description), in the order the phase select lists
 * them. Owners add, rename, reorder and delete; members see the list only.
 */
export function PhaseMastersPanel({ canEdit }: { canEdit: boolean }) {
  const { api } = useServices();
  const { data } = useSuspenseQuery(referenceDataQueries.phaseMasters(api));
  const replace = useReplacePhaseMasters();
  const onError = useMutationErrorHandler();
  // `{ index: null }` is the form open for a new phase; `null` is the form closed.
  const [editing, setEditing] = useState<{ index: number | null } | null>(null);
  const [deleting, setDeleting] = useState<number | null>(null);
  // Stable while the list is unchanged: the open form keeps what is typed across re-renders.
  const phases = useMemo(() => toDrafts(data), [data]);
  const full = phases.length >= maxPhaseMasters;

  const save = async (next: PhaseMasterDraft[], success: string): Promise<unknown> => {
    try {
      await replace.mutateAsync({ next, basedOn: phases });
      toast.success(success);
      return null;
    } catch (error) {
      // A 409 (another owner saved first) is said in the server's words; the list reloads with their change.
      onError(error);
      return error;
    }
  };

  const submitForm = async (values: PhaseMasterDraft): Promise<PhaseFormErrors | null> => {
    const index = editing?.index ?? null;
    const others = phases.filter((_, i) => i !== index);
    const errors = validatePhaseDraft(values, others);
    if (Object.keys(errors).length > 0) return errors;
    const draft = { ...values, name: values.name.trim() };
    const next = index === null ? [...phases, draft] : phases.map((p, i) => (i === index ? draft : p));
    const failure = await save(next, index === null ? 'フェーズを追加しました' : 'フェーズを更新しました');
    if (failure === null) {
      setEditing(null);
      return null;
    }
    if (isApiError(failure) && failure.status === 422) return rowErrors(failure, index ?? next.length - 1);
    setEditing(null);
    return null;
  };

  const move = async (index: number, to: number) => {
    const next = [...phases];
    const [moved] = next.splice(index, 1);
    next.splice(to, 0, moved!);
    const failure = await save(next, '並び順を変更しました');
    if (isApiError(failure) && failure.status === 422) toast.error(failure.errors[0]?.message ?? failure.message);
  };

  const confirmDelete = async () => {
    if (deleting === null) return;
    const failure = await save(
      phases.filter((_, i) => i !== deleting),
      'フェーズを削除しました',
    );
    if (isApiError(failure) && failure.status === 422) toast.error(failure.errors[0]?.message ?? failure.message);
    setDeleting(null);
  };

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
        phase={editing && editing.index !== null ? (phases[editing.index] ?? null) : null}
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
