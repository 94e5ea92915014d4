import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { PhaseMaster } from '@renkei/contracts';
import { listVersion } from '@renkei/contracts/client';
import { isApiError } from '../../api/api-errors.ts';
import { useServices } from '../../app/services-context.tsx';
import { institutionQueries } from '../medical-institutions/medical-institutions.queries.ts';
import { referenceDataQueries } from '../reference-data/reference-data.queries.ts';

/** One phase as the screen sends it: an id keeps the phase (and the institutions in it), none adds one. */
export interface PhaseMasterDraft {
  id?: string;
  name: string;
  description: string;
}

export const toDrafts = (masters: readonly PhaseMaster[]): PhaseMasterDraft[] =>
  [...masters].sort((a, b) => a.order - b.order).map((m) => ({ id: m.id, name: m.name, description: m.description }));

/**
 * Every change (add, rename, reorder, delete) is the whole ordered list through the one PUT, sent
 * with the version of the list it was based on: if another owner saved in between, the server
 * answers 409 and the screen reloads the list instead of undoing their change.
 */
export function useReplacePhaseMasters() {
  const { api } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ next, basedOn }: { next: PhaseMasterDraft[]; basedOn: readonly PhaseMasterDraft[] }) =>
      api.replacePhaseMasters({
        body: { phase_masters: next },
        ifMatch: listVersion(basedOn.map((p) => ({ id: p.id ?? '', name: p.name, description: p.description }))),
      }),
    onError: (error) => {
      if (isApiError(error) && error.status === 409) {
        return queryClient.invalidateQueries({ queryKey: referenceDataQueries.phaseMasters(api).queryKey });
      }
    },
    onSuccess: (saved) => {
      queryClient.setQueryData(referenceDataQueries.phaseMasters(api).queryKey, saved);
      // Phase names show on institution pages and in search results; a deleted phase empties them.
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: referenceDataQueries.phaseMasters(api).queryKey }),
        queryClient.invalidateQueries({ queryKey: institutionQueries.all }),
      ]);
    },
    meta: { handlesErrors: true },
  });
}

export const maxPhaseMasters = 20;
export const maxPhaseNameLength = 30;
export const maxPhaseDescriptionLength = 200;

/** The same checks as the contract and the command (names equal after NFKC and trimming are one name). */
export function validatePhaseDraft(
  draft: PhaseMasterDraft,
  others: readonly PhaseMasterDraft[],
): Partial<Record<'name' | 'description', string>> {
  const errors: Partial<Record<'name' | 'description', string>> = {};
  const key = (s: string) => s.normalize('NFKC').trim();
  if (!draft.name.trim()) errors.name = 'フェーズ名を入力してください';
  else if (draft.name.trim().length > maxPhaseNameLength)
    errors.name = `フェーズ名は${maxPhaseNameLength}文字以内で入力してください`;
  else if (others.some((o) => key(o.name) === key(draft.name))) errors.name = 'このフェーズ名は既に登録されています';
  if (draft.description.length > maxPhaseDescriptionLength)
    errors.description = `説明は${maxPhaseDescriptionLength}文字以内で入力してください`;
  return errors;
}
