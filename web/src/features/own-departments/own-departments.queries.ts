import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { OwnDepartment } from '@renkei/contracts';
import { ownDepartmentsVersion } from '@renkei/contracts/client';
import { isApiError } from '../../api/api-errors.ts';
import { useServices } from '../../app/services-context.tsx';
import { dataAnalysisQueries } from '../data-analysis/data-analysis.queries.ts';
import { referenceDataQueries } from '../reference-data/reference-data.queries.ts';

/**
 * One own department as the screen sends it: an id keeps the department (and every referral, label
 * value and setting that points at it), none adds one.
 */
export interface OwnDepartmentDraft {
  id?: string;
  name: string;
  /** The master department (2-digit code) it corresponds to, if any. */
  department_id: string | null;
}

export const toDrafts = (departments: readonly OwnDepartment[]): OwnDepartmentDraft[] =>
  [...departments]
    .sort((a, b) => a.order - b.order)
    .map((d) => ({ id: d.id, name: d.name, department_id: d.department_id }));

/**
 * Every change (add, rename, reorder, delete) is the whole ordered list through the one PUT, sent
 * with the version of the list it was based on: if another owner saved in between, the server
 * answers 409 and the screen reloads the list instead of undoing their change.
 */
export function useReplaceOwnDepartments() {
  const { api } = useServices();
  const queryClient = useQueryClient();
  // The one query every screen reads own departments through (filters, label values, forms).
  const listKey = referenceDataQueries.ownDepartments(api).queryKey;
  return useMutation({
    mutationFn: ({ next, basedOn }: { next: OwnDepartmentDraft[]; basedOn: readonly OwnDepartmentDraft[] }) =>
      api.replaceOwnDepartments({
        body: { own_departments: next },
        // The same version the GET answers as its ETag (and the command compares).
        ifMatch: ownDepartmentsVersion(
          basedOn.map((d) => ({ id: d.id ?? '', name: d.name, department_id: d.department_id })),
        ),
      }),
    onError: (error) => {
      if (isApiError(error) && error.status === 409) return queryClient.invalidateQueries({ queryKey: listKey });
    },
    onSuccess: (saved) => {
      queryClient.setQueryData(listKey, saved);
      // The analysis figures name own departments on the server (the 自院診療科別 breakdown, the
      // department charts) and stay fresh for a minute: a rename must show there at once.
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: listKey }),
        queryClient.invalidateQueries({ queryKey: dataAnalysisQueries.figures() }),
      ]);
    },
    meta: { handlesErrors: true },
  });
}

/** The contract's limits (libs/contracts reference-data.schemas.ts, OwnDepartmentsInput). */
export const maxOwnDepartments = 200;
export const maxOwnDepartmentNameLength = 50;

export type OwnDepartmentErrors = Partial<Record<'name' | 'department_id', string>>;

/**
 * The same checks as the contract and the command: the name is trimmed, at most 50 characters, and
 * names equal after NFKC and trimming are one name (the command refuses the list, and uploads match
 * by NFKC name, so two such departments could never both receive referrals).
 */
export function validateOwnDepartmentDraft(
  draft: OwnDepartmentDraft,
  others: readonly OwnDepartmentDraft[],
): OwnDepartmentErrors {
  const errors: OwnDepartmentErrors = {};
  const key = (s: string) => s.normalize('NFKC').trim();
  const name = draft.name.trim();
  if (!name) errors.name = '診療科名を入力してください';
  else if (name.length > maxOwnDepartmentNameLength)
    errors.name = `診療科名は${maxOwnDepartmentNameLength}文字以内で入力してください`;
  else if (others.some((o) => key(o.name) === key(name))) errors.name = 'この診療科名は既に登録されています';
  return errors;
}
