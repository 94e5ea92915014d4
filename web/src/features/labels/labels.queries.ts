import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import type { MedicalInstitutionLabelInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useServices } from '../../app/services-context.tsx';

export const labelQueries = {
  all: ['labels'] as const,
  institutionLabels: (api: ApiClient) =>
    queryOptions({
      queryKey: [...labelQueries.all, 'medical-institution'] as const,
      queryFn: ({ signal }) => api.listMedicalInstitutionLabels({ signal }),
    }),
};

export type InstitutionLabelInputValues = z.input<typeof MedicalInstitutionLabelInput>;

function useInvalidateLabels() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: labelQueries.all });
}

export function useCreateInstitutionLabel() {
  const { api } = useServices();
  const invalidate = useInvalidateLabels();
  return useMutation({
    mutationFn: (body: InstitutionLabelInputValues) => api.createMedicalInstitutionLabel({ body }),
    onSuccess: invalidate,
    meta: { handlesErrors: true },
  });
}

export function useUpdateInstitutionLabel() {
  const { api } = useServices();
  const invalidate = useInvalidateLabels();
  return useMutation({
    mutationFn: ({ id, version, body }: { id: string; version: number; body: InstitutionLabelInputValues }) =>
      api.updateMedicalInstitutionLabel({ params: { id }, body, ifMatch: version }),
    onSuccess: invalidate,
    meta: { handlesErrors: true },
  });
}

export function useDeleteInstitutionLabel() {
  const { api } = useServices();
  const invalidate = useInvalidateLabels();
  return useMutation({
    mutationFn: ({ id, version }: { id: string; version: number }) =>
      api.deleteMedicalInstitutionLabel({ params: { id }, ifMatch: version }),
    onSuccess: invalidate,
    meta: { handlesErrors: true },
  });
}

export function useOrderInstitutionLabels() {
  const { api } = useServices();
  const invalidate = useInvalidateLabels();
  return useMutation({
    mutationFn: (label_ids: string[]) => api.orderMedicalInstitutionLabels({ body: { label_ids } }),
    onSuccess: invalidate,
    meta: { handlesErrors: true },
  });
}
