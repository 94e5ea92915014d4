import { Select, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { MedicalInstitutionPhase } from '@renkei/contracts';
import { useServices } from '../../../app/services-context.tsx';
import { formatDateTime } from '../../../app/dates.ts';
import { toast } from '../../../app/toast.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { useUpdatePhase } from '../medical-institutions.queries.ts';

/** Shown only when the tenant has enabled_phase (the caller decides). */
export function PhaseSelect({
  institutionId,
  phase,
  onError,
}: {
  institutionId: string;
  phase: MedicalInstitutionPhase | null;
  onError: (e: unknown) => void;
}) {
  const { api } = useServices();
  const masters = useQuery(referenceDataQueries.phaseMasters(api));
  const update = useUpdatePhase(institutionId);
  const change = async (id: string | null) => {
    try {
      await update.mutateAsync(id);
      toast.success('フェーズを変更しました');
    } catch (e) {
      onError(e);
    }
  };
  return (
    <Stack gap={2}>
      <Select
        label="フェーズ"
        placeholder={masters.data?.length === 0 ? 'フェーズが登録されていません' : '未設定'}
        data={(masters.data ?? []).map((m) => ({ value: m.id, label: m.name }))}
        value={phase?.phase_master_id ?? null}
        onChange={(v) => void change(v)}
        clearable
        disabled={update.isPending}
        w={220}
        data-testid="phase-select"
      />
      {phase?.changed_at && (
        <Text size="xs" c="dimmed">
          {phase.changed_user?.name ?? '不明なユーザー'}が{formatDateTime(phase.changed_at)}に変更
        </Text>
      )}
    </Stack>
  );
}
