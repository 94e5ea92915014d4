import { Badge, Group, SegmentedControl, Stack, Text } from '@mantine/core';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import { communicationTypeNames, type CommunicationLabel, type CommunicationType } from '@renkei/contracts';
import { useState } from 'react';
import { isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { communicationQueries } from '../../communications/communications.queries.ts';
import {
  communicationLabelsWithOrder,
  useCreateCommunicationLabel,
  useDeleteCommunicationLabel,
  useOrderCommunicationLabels,
  useUpdateCommunicationLabel,
  type CommunicationLabelInputValues,
} from '../labels.queries.ts';
import { selectionsText, useLabelDialogs } from '../useLabelDialogs.ts';
import { LabelPanelActions } from './LabelPanelActions.tsx';
import { LabelFormModal } from './LabelFormModal.tsx';
import { LabelTable } from './LabelTable.tsx';

const types = Object.entries(communicationTypeNames).map(([value, label]) => ({ value, label }));

/**
 * The items a record of each communication type asks for (spec §3 Communication label), in the order
 * the form shows them. One order covers every type (the API takes the whole list), so moving a label
 * among its type's labels rebuilds that list with the other types' labels where they were.
 */
export function CommunicationLabelsPanel({ canEdit }: { canEdit: boolean }) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const {
    data: { labels, orderVersion },
  } = useSuspenseQuery(communicationLabelsWithOrder(api));
  const [type, setType] = useState<CommunicationType>('visit');
  const remove = useDeleteCommunicationLabel();
  const order = useOrderCommunicationLabels();
  const { editing, setEditing, deleting, setDeleting, save, confirmDelete, onError } = useLabelDialogs<
    CommunicationLabel,
    CommunicationLabelInputValues
  >({ create: useCreateCommunicationLabel(), update: useUpdateCommunicationLabel(), remove });
  const all = [...labels].sort((a, b) => a.order - b.order);
  const shown = all.filter((l) => l.communication_type === type);
  const counts = new Map<string, number>();
  for (const l of labels) counts.set(l.communication_type, (counts.get(l.communication_type) ?? 0) + 1);

  const saveOrder = async (ids: string[]) => {
    // The type's slots in the whole order keep their places; only who fills them changes.
    let next = 0;
    const whole = all.map((l) => (l.communication_type === type ? ids[next++]! : l.id));
    try {
      await order.mutateAsync({ label_ids: whole, orderVersion });
    } catch (error) {
      onError(error);
      // Someone saved the labels meanwhile: show their order (the toast says so) before another move.
      if (isApiError(error) && error.status === 409)
        await queryClient.invalidateQueries({ queryKey: communicationQueries.all });
    }
  };

  return (
    <Stack gap="sm">
      <Text size="sm" c="dimmed">
        活動の種別ごとに、記録時に入力する項目です。上から順に記録画面に表示されます。
      </Text>
      <Group justify="space-between" align="flex-end">
        <SegmentedControl
          size="xs"
          value={type}
          onChange={(v) => setType(v as CommunicationType)}
          data={types.map((t) => ({ value: t.value, label: `${t.label}（${counts.get(t.value) ?? 0}）` }))}
          data-testid="communication-label-type"
        />
        <LabelPanelActions
          canEdit={canEdit}
          importLink={
            <ButtonLink
              to="/labels/communications/import"
              variant="default"
              size="xs"
              data-testid="open-communication-import"
            >
              活動記録のインポート
            </ButtonLink>
          }
          onCreate={() => setEditing({ record: null })}
          createTestId="create-communication-label"
        />
      </Group>
      {shown.length === 0 ? (
        <Text c="dimmed" py="lg" ta="center" data-testid="communication-labels-empty">
          {canEdit
            ? `「${communicationTypeNames[type]}」のラベルはまだありません。「新規作成」から、記録のたびに入力したい項目（例: 面談相手、次回訪問予定）を作成してください。`
            : `「${communicationTypeNames[type]}」のラベルはまだありません。オーナーが作成すると、ここに表示されます。`}
        </Text>
      ) : (
        <LabelTable
          labels={shown}
          canEdit={canEdit}
          detailHeader="選択肢"
          detailOf={selectionsText}
          badgesOf={(l) =>
            l.is_required && (
              <Badge color="red" variant="light" size="xs">
                必須
              </Badge>
            )
          }
          reordering={order.isPending}
          onReorder={(ids) => void saveOrder(ids)}
          onEdit={(l) => setEditing({ record: l })}
          onDelete={setDeleting}
          testId="communication-label-table"
        />
      )}
      <LabelFormModal
        kind="communication"
        opened={editing !== null}
        label={editing?.record ?? null}
        defaultCommunicationType={type}
        onClose={() => setEditing(null)}
        onSubmit={save}
      />
      <ConfirmDeleteModal
        opened={deleting !== null}
        title="ラベルを削除"
        message={<>ラベル「{deleting?.name}」を削除しますか？</>}
        // docs/decisions.md: a deleted label's values stay readable, marked, on the timeline and in the CSV.
        detail={`記録画面の入力欄からなくなります。記録済みの活動の値は消えず、「${deleting?.name ?? ''}（削除済み）」として表示とCSV出力に残ります。`}
        pending={remove.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() => void confirmDelete()}
        testId="confirm-delete-communication-label"
      />
    </Stack>
  );
}
