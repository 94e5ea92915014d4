import { queryOptions } from '@tanstack/react-query';
import type { DoctorInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';

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

const changedBy = (institutionId: string) => [
  doctorQueries.byInstitution(institutionId),
  // The history timeline and doctor count of the CRM page change with every doctor edit.
  ['medical-institutions', 'detail', institutionId],
];

export const useCreateDoctor = (institutionId: string) =>
  useApiMutation(
    (api, body: DoctorInputValues) => api.createDoctor({ params: { id: institutionId }, body }),
    changedBy(institutionId),
  );

export const useUpdateDoctor = (institutionId: string) =>
  useApiMutation(
    (api, { id, version, body }: { id: string; version: number; body: DoctorInputValues }) =>
      api.updateDoctor({ params: { medical_institution_id: institutionId, id }, body, ifMatch: version }),
    changedBy(institutionId),
  );

export const useDeleteDoctor = (institutionId: string) =>
  useApiMutation(
    (api, { id, version }: { id: string; version: number }) =>
      api.deleteDoctor({ params: { medical_institution_id: institutionId, id }, ifMatch: version }),
    changedBy(institutionId),
  );
