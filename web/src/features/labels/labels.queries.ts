import { queryOptions } from '@tanstack/react-query';
import type { MedicalInstitutionLabelInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';

export const labelQueries = {
  all: ['labels'] as const,
  institutionLabels: (api: ApiClient) =>
    queryOptions({
      queryKey: [...labelQueries.all, 'medical-institution'] as const,
      queryFn: ({ signal }) => api.listMedicalInstitutionLabels({ signal }),
    }),
};

export type InstitutionLabelInputValues = z.input<typeof MedicalInstitutionLabelInput>;

export const useCreateInstitutionLabel = () =>
  useApiMutation(
    (api, body: InstitutionLabelInputValues) => api.createMedicalInstitutionLabel({ body }),
    [labelQueries.all],
  );

export const useUpdateInstitutionLabel = () =>
  useApiMutation(
    (api, { id, version, body }: { id: string; version: number; body: InstitutionLabelInputValues }) =>
      api.updateMedicalInstitutionLabel({ params: { id }, body, ifMatch: version }),
    [labelQueries.all],
  );

export const useDeleteInstitutionLabel = () =>
  useApiMutation(
    (api, { id, version }: { id: string; version: number }) =>
      api.deleteMedicalInstitutionLabel({ params: { id }, ifMatch: version }),
    [labelQueries.all],
  );

export const useOrderInstitutionLabels = () =>
  useApiMutation(
    (api, label_ids: string[]) => api.orderMedicalInstitutionLabels({ body: { label_ids } }),
    [labelQueries.all],
  );
