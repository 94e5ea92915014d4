import { Button, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { LabelValue, MedicalInstitutionLabel } from '@renkei/contracts';
import { useState } from 'react';
import { isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { LabelValueField } from '../../labels/components/LabelValueField.tsx';
import { displayLabelValue, draftOf, toLabelValueInput, type LabelValueDraft } from '../../labels/label-values.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { useUpdateLabelValues } from '../medical-institutions.queries.ts';

/** A 422 names `label_values.<index>.<field>` (or `[index]`); the message goes to that label's input. */
export function labelErrorsByIndex(errors: { field: string; message: string }[]): Record<number, string> {
  const out: Record<number, string> = {};
  for (const e of errors) {
    const m = e.field.match(/^label_values(?:\.|\[)(\d+)/);
    if (m) out[Number(m[1])] ??= e.message;
  }
  return out;
}

export function InstitutionLabelValues({
  institutionId,
  labels,
  values,
  onError,
}: {
  institutionId: string;
  labels: MedicalInstitutionLabel[];
  values: LabelValue[];
  onError: (e: unknown) => void;
}) {
  const { api } = useServices();
  const needsDepartments = labels.some((l) => l.component_type === 'own_department');
  const ownDepartments = useQuery({ ...referenceDataQueries.ownDepartments(api), enabled: needsDepartments });
  const [drafts, setDrafts] = useState<LabelValueDraft[] | null>(null);
  const [errors, setErrors] = useState<Record<number, string>>({});
  const update = useUpdateLabelValues(institutionId);
  const sorted = [...labels].sort((a, b) => a.order - b.order);

  const startEditing = () => {
    setErrors({});
    setDrafts(
      sorted.map((l) =>
        draftOf(
          l.id,
          values.find((v) => v.label_id === l.id),
        ),
      ),
    );
  };

  const save = async () => {
    if (!drafts) return;
    setErrors({});
    try {
      await update.mutateAsync(sorted.map((l, i) => toLabelValueInput(l, drafts[i]!)));
      setDrafts(null);
      toast.success('ラベルを保存しました');
    } catch (e) {
      if (isApiError(e) && e.status === 422) setErrors(labelErrorsByIndex(e.errors));
      else onError(e);
    }
  };

  return (
    <Paper withBorder p="md" data-testid="institution-labels">
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={3} fz="md">
            ラベル
          </Title>
          {drafts === null && sorted.length > 0 && (
            <Button
              size="xs"
              variant="light"
              onClick={startEditing}
              data-testid="edit-labels"
              aria-label="ラベルを編集"
            >
              編集
            </Button>
          )}
        </Group>
        {sorted.length === 0 ? (
          <Text size="sm" c="dimmed">
            医療機関ラベルはまだありません。ラベル管理で作成すると、ここで値を入力できます。
          </Text>
        ) : drafts === null ? (
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
            {sorted.map((l) => (
              <div key={l.id} data-label-name={l.name}>
                <Text size="xs" c="dimmed">
                  {l.name}
                </Text>
                <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
                  {displayLabelValue(
                    l,
                    values.find((v) => v.label_id === l.id),
                    ownDepartments.data,
                  ) || '—'}
                </Text>
              </div>
            ))}
          </SimpleGrid>
        ) : (
          <Stack gap="sm">
            {sorted.map((l, i) => (
              <LabelValueField
                key={l.id}
                label={l}
                value={drafts[i]!}
                ownDepartments={ownDepartments.data ?? []}
                error={errors[i]}
                onChange={(next) => setDrafts((d) => d && d.map((x, j) => (j === i ? next : x)))}
              />
            ))}
            <Group justify="flex-end" gap="xs">
              <Button size="xs" variant="default" onClick={() => setDrafts(null)}>
                キャンセル
              </Button>
              <Button size="xs" loading={update.isPending} onClick={() => void save()} data-testid="save-labels">
                保存
              </Button>
            </Group>
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
