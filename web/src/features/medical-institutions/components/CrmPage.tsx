import { Grid, Stack } from '@mantine/core';
import { useQuery, useQueryClient, useSuspenseQuery } from '@tanstack/react-query';
import type { MedicalInstitutionNote, MedicalInstitutionSummary } from '@renkei/contracts';
import { useCallback } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { reloadedConflictMessage } from '../../../errors/mutation-errors.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { DoctorList } from '../../doctors/components/DoctorList.tsx';
import { HistoryTimeline } from '../../histories/components/HistoryTimeline.tsx';
import { InstitutionVocs } from '../../vocs/components/InstitutionVocs.tsx';
import { InstitutionActionLists } from '../../action-lists/components/InstitutionActionLists.tsx';
import { InstitutionOpenTasks } from '../../tasks/components/InstitutionOpenTasks.tsx';
import { InstitutionRecentCommunications } from '../../communications/components/InstitutionRecentCommunications.tsx';
import { InstitutionReferralFigures } from '../../referrals/components/InstitutionReferralFigures.tsx';
import { labelQueries } from '../../labels/labels.queries.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { institutionQueries, useUpdateMemo, useUpdateSpecialNote } from '../medical-institutions.queries.ts';
import { CrmHeader } from './CrmHeader.tsx';
import { InstitutionLabelValues } from './InstitutionLabelValues.tsx';
import { NoteEditor } from './NoteEditor.tsx';

export function CrmPage({ id }: { id: string }) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const { data: mi } = useSuspenseQuery(institutionQueries.summary(api, id));
  const tenant = useQuery(referenceDataQueries.tenant(api));
  const labels = useQuery({ ...labelQueries.institutionLabels(api), retry: false });
  const memo = useUpdateMemo(id);
  const specialNote = useUpdateSpecialNote(id);
  const onError = useMutationErrorHandler({ conflictMessage: reloadedConflictMessage });
  // The winning write may come from another browser, so this page's read-your-writes position does not
  // cover it: read again until the note's version has moved past the one that was refused.
  const reloadPast = useCallback(
    async (pick: (s: MedicalInstitutionSummary) => MedicalInstitutionNote, staleVersion: number) => {
      for (let attempt = 0; attempt < 20; attempt++) {
        const fresh = await queryClient.fetchQuery({ ...institutionQueries.summary(api, id), staleTime: 0 });
        if (pick(fresh).version !== staleVersion) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await queryClient.invalidateQueries({ queryKey: institutionQueries.detail(id) });
    },
    [queryClient, api, id],
  );

  return (
    <Stack gap="md">
      <CrmHeader mi={mi} enabledPhase={tenant.data?.enabled_phase === true} onError={onError} />
      {/* Full width under the header: the four figures side by side and the year's trend need the room. */}
      <InstitutionReferralFigures id={id} />
      <Grid gap="md">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack gap="md">
            <NoteEditor
              title="メモ"
              testId="memo"
              maxLength={10000}
              note={mi.memo}
              onSave={(content, version) => memo.mutateAsync({ content, version })}
              onError={onError}
              onConflict={(v) => reloadPast((s) => s.memo, v)}
            />
            <NoteEditor
              title="特記事項"
              testId="special-note"
              maxLength={2000}
              note={mi.special_note}
              onSave={(content, version) => specialNote.mutateAsync({ content, version })}
              onError={onError}
              onConflict={(v) => reloadPast((s) => s.special_note, v)}
            />
            {labels.isSuccess && (
              <InstitutionLabelValues
                institutionId={id}
                labels={labels.data}
                values={mi.label_values}
                onError={onError}
              />
            )}
            <DoctorList institutionId={id} onError={onError} />
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Stack gap="md">
            <InstitutionOpenTasks id={id} />
            <InstitutionRecentCommunications id={id} />
            <InstitutionVocs institutionId={id} />
            <InstitutionActionLists institutionId={id} />
            <HistoryTimeline institutionId={id} />
          </Stack>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
