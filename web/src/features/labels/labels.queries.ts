import { queryOptions } from '@tanstack/react-query';
import type { CommunicationLabelInput, MedicalInstitutionLabelInput } from '@renkei/contracts';
import type { z } from 'zod';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';
import { communicationQueries } from '../communications/communications.queries.ts';

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

export type CommunicationLabelInputValues = z.input<typeof CommunicationLabelInput>;

// The communication form reads these labels through the communications' own query, so that is what changes.
export const useCreateCommunicationLabel = () =>
  useApiMutation(
    (api, body: CommunicationLabelInputValues) => api.createCommunicationLabel({ body }),
    [communicationQueries.all],
  );

export const useUpdateCommunicationLabel = () =>
  useApiMutation(
    (api, { id, version, body }: { id: string; version: number; body: CommunicationLabelInputValues }) =>
      api.updateCommunicationLabel({ params: { id }, body, ifMatch: version }),
    [communicationQueries.all],
  );

export const useDeleteCommunicationLabel = () =>
  useApiMutation(
    (api, { id, version }: { id: string; version: number }) =>
      api.deleteCommunicationLabel({ params: { id }, ifMatch: version }),
    [communicationQueries.all],
  );

/**
 * The tenant's communication labels with the version of their order (the list's ETag), which a reorder
 * sends back. Under the communications' keys, so every label change refreshes it with the form's list.
 */
export const communicationLabelsWithOrder = (api: ApiClient) =>
  queryOptions({
    queryKey: [...communicationQueries.all, 'labels', 'with-order-version'] as const,
    queryFn: async ({ signal }) => {
      let orderVersion: string | null = null;
      const labels = await api.listCommunicationLabels({
        query: {},
        signal,
        onEtag: (etag) => {
          orderVersion = etag;
        },
      });
      return { labels, orderVersion: orderVersion as string | null };
    },
  });

/** Saves the order over the version it was read at (If-Match): a reorder by someone else since is a 409. */
export const useOrderCommunicationLabels = () =>
  useApiMutation(
    (api, { label_ids, orderVersion }: { label_ids: string[]; orderVersion: string | null }) =>
      api.orderCommunicationLabels({
        body: { label_ids },
        ...(orderVersion === null ? {} : { ifMatch: orderVersion }),
      }),
    [communicationQueries.all],
  );
