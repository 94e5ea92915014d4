import { Group, Stack, Text } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import type { MedicalInstitutionLabel } from '@renkei/contracts';
import { useServices } from '../../../app/services-context.tsx';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { prefectureName } from '../../reference-data/prefectures.ts';
import {
  labelQueries,
  useCreateInstitutionLabel,
  useDeleteInstitutionLabel,
  useOrderInstitutionLabels,
  useUpdateInstitutionLabel,
  type InstitutionLabelInputValues,
} from '../labels.queries.ts';
import { selectionsText, useLabelDialogs } from '../useLabelDialogs.ts';
import { LabelPanelActions } from './LabelPanelActions.tsx';
import { LabelFormModal } from './LabelFormModal.tsx';
import { LabelTable } from './LabelTable.tsx';

function detailOf(label: MedicalInstitutionLabel): string {
  if (label.component_type === 'area') {
    return label.areas
      .map(
        (a) =>
          `${a.name}（${a.addresses.map((x) => `${prefectureName(x.prefecture)}${x.city_or_locality}`).join('・')}）`,
      )
      .join('、');
  }
  return selectionsText(label);
}

/** `canEdit`: owners change the tenant's labels (docs/decisions.md "Roles"); members see them read-only. */
export function InstitutionLabelsPanel({ canEdit }: { canEdit: boolean }) {
  const { api } = useServices();
  const { data: labels } = useSuspenseQuery(labelQueries.institutionLabels(api));
  const remove = useDeleteInstitutionLabel();
  const order = useOrderInstitutionLabels();
  const { editing, setEditing, deleting, setDeleting, save, confirmDelete, onError } = useLabelDialogs<
    MedicalInstitutionLabel,
    InstitutionLabelInputValues
  >({ create: useCreateInstitutionLabel(), update: useUpdateInstitutionLabel(), remove });
  const sorted = [...labels].sort((a, b) => a.order - b.order);

  const saveOrder = async (ids: string[]) => {
    try {
      await order.mutateAsync(ids);
    } catch (error) {
      onError(error);
    }
  };

  return (
    <Stack gap="sm">
      <Group justify="space-between">
        <Text size="sm" c="dimmed">
          医療機関ごとに記録する項目です。上から順に医療機関ページに表示されます。
        </Text>
        <LabelPanelActions
          canEdit={canEdit}
          importLink={
            <ButtonLink to="/labels/medical_institutions/import" variant="default" size="xs" data-testid="open-import">
              ラベル値のインポート
            </ButtonLink>
          }
          onCreate={() => setEditing({ record: null })}
          createTestId="create-label"
        />
      </Group>
      {sorted.length === 0 ? (
        <Text c="dimmed" py="lg" ta="center">
          {canEdit
            ? '医療機関ラベルはまだありません。「新規作成」から、医療機関ごとに記録したい項目（例: 紹介窓口、連携協定の有無）を作成してください。'
            : '医療機関ラベルはまだありません。オーナーが作成すると、ここに表示されます。'}
        </Text>
      ) : (
        <LabelTable
          labels={sorted}
          canEdit={canEdit}
          detailHeader="選択肢・エリア"
          detailOf={detailOf}
          reordering={order.isPending}
          onReorder={(ids) => void saveOrder(ids)}
          onEdit={(l) => setEditing({ record: l })}
          onDelete={setDeleting}
          testId="label-table"
        />
      )}
      <LabelFormModal
        opened={editing !== null}
        label={editing?.record ?? null}
        onClose={() => setEditing(null)}
        onSubmit={save}
      />
      <ConfirmDeleteModal
        opened={deleting !== null}
        title="ラベルを削除"
        message={<>ラベル「{deleting?.name}」を削除しますか？医療機関に入力された値もすべて削除されます。</>}
        pending={remove.isPending}
        onClose={() => setDeleting(null)}
        onConfirm={() => void confirmDelete()}
        testId="confirm-delete-label"
      />
    </Stack>
  );
}
