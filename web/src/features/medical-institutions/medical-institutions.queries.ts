import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { LabelValueInput, MedicalInstitutionSearchBody } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';

/** One key factory for institutions; the CRM page's mutations invalidate only these keys. */
export const institutionQueries = {
  all: ['medical-institutions'] as const,
  searches: () => [...institutionQueries.all, 'search'] as const,
  search: (api: ApiClient, body: MedicalInstitutionSearchBody) =>
    queryOptions({
      queryKey: [...institutionQueries.searches(), body] as const,
      queryFn: ({ signal }) => api.searchMedicalInstitutions({ body, signal }),
      placeholderData: keepPreviousData,
    }),
  detail: (id: string) => [...institutionQueries.all, 'detail', id] as const,
  summary: (api: ApiClient, id: string) =>
    queryOptions({
      queryKey: [...institutionQueries.detail(id), 'summary'] as const,
      queryFn: ({ signal }) => api.getSummary({ params: { id }, signal }),
    }),
  memo: (api: ApiClient, id: string) =>
    queryOptions({
      queryKey: [...institutionQueries.detail(id), 'memo'] as const,
      queryFn: ({ signal }) => api.getMemo({ params: { id }, signal }),
    }),
  labelValues: (api: ApiClient, id: string) =>
    queryOptions({
      queryKey: [...institutionQueries.detail(id), 'label-values'] as const,
      queryFn: ({ signal }) => api.getLabelValues({ params: { medical_institution_id: id }, signal }),
    }),
  histories: (api: ApiClient, id: string, page: number) =>
    queryOptions({
      queryKey: [...institutionQueries.detail(id), 'histories', page] as const,
      queryFn: ({ signal }) => api.getHistories({ params: { id }, query: { page, per_page: 20 }, signal }),
      placeholderData: keepPreviousData,
    }),
};

const changedBy = (id: string) => [institutionQueries.detail(id), institutionQueries.searches()];

export const useUpdateMemo = (id: string) =>
  useApiMutation(
    (api, { content, version }: { content: string; version: number }) =>
      api.updateMemo({ params: { id }, body: { content }, ifMatch: version }),
    changedBy(id),
  );

export const useUpdateSpecialNote = (id: string) =>
  useApiMutation(
    (api, { content, version }: { content: string; version: number }) =>
      api.updateSpecialNote({ params: { id }, body: { content }, ifMatch: version }),
    changedBy(id),
  );

export const useUpdatePhase = (id: string) =>
  useApiMutation(
    (api, phase_master_id: string | null) => api.updatePhase({ params: { id }, body: { phase_master_id } }),
    changedBy(id),
  );

export const useUpdateInstitutionTags = (id: string) =>
  useApiMutation(
    (api, tag_ids: string[]) => api.updateTags({ params: { id }, body: { tag_ids } }),
    // Tag counts (medical_institution_count) change with this.
    [...changedBy(id), ['tags']],
  );

export const useUpdateLabelValues = (id: string) =>
  useApiMutation(
    (api, label_values: z.input<typeof LabelValueInput>[]) =>
      api.updateLabelValues({ params: { medical_institution_id: id }, body: { label_values } }),
    changedBy(id),
  );
