import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import type { DoctorInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useServices } from '../../app/services-context.tsx';

export const doctorQueries = {
  all: ['doctors'] as const,
  byInstitution: (id: string) => [...doctorQueries.all, 'institution', id] as const,
  list: (api: ApiClient, institutionId: string) =>
    queryOptions({
      queryKey: doctorQueries.byInstitution(institutionId),
      queryFn: ({ signal }) => api.listDoctors({ params: { id: institutionId }, signal }),
    }),
};

export type DoctorInputValues = z.input<typeof DoctorInput>;

function useInvalidateDoctors(institutionId: string) {
  const queryClient = useQueryClient();
  return () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: doctorQueries.byInstitution(institutionId) }),
      // The history timeline and doctor count of the CRM page change with every doctor edit.
      queryClient.invalidateQueries({ queryKey: ['medical-institutions', 'detail', institutionId] }),
    ]);
}

export function useCreateDoctor(institutionId: string) {
  const { api } = useServices();
  const invalidate = useInvalidateDoctors(institutionId);
  return useMutation({
    mutationFn: (body: DoctorInputValues) => api.createDoctor({ params: { id: institutionId }, body }),
    onSuccess: invalidate,
    meta: { handlesErrors: true },
  });
}

export function useUpdateDoctor(institutionId: string) {
  const { api } = useServices();
  const invalidate = useInvalidateDoctors(institutionId);
  return useMutation({
    mutationFn: ({ id, version, body }: { id: string; version: number; body: DoctorInputValues }) =>
      api.updateDoctor({ params: { medical_institution_id: institutionId, id }, body, ifMatch: version }),
    onSuccess: invalidate,
    meta: { handlesErrors: true },
  });
}

export function useDeleteDoctor(institutionId: string) {
  const { api } = useServices();
  const invalidate = useInvalidateDoctors(institutionId);
  return useMutation({
    mutationFn: ({ id, version }: { id: string; version: number }) =>
      api.deleteDoctor({ params: { medical_institution_id: institutionId, id }, ifMatch: version }),
    onSuccess: invalidate,
    meta: { handlesErrors: true },
  });
}
