import { queryOptions } from '@tanstack/react-query';
import type {
  CommunicationCreateInput,
  CommunicationUpdateInput,
  CommunicationSearchBody,
  MedicalInstitutionCommunicationSearchBody,
} from '@renkei/contracts';
import type { z } from 'zod';
import { communicationTypeNames } from '@renkei/contracts';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';
import { staleFiguresAfter } from '../data-analysis/invalidate-figures.ts';
import { taskQueries } from '../tasks/tasks.queries.ts';

export type CommunicationSearchInput = z.input<typeof CommunicationSearchBody>;
export type InstitutionCommunicationSearchInput = z.input<typeof MedicalInstitutionCommunicationSearchBody>;

/**
 * Whom a new task is for until the user picks someone: the one writing it, when they are one of the staff
 * (a vendor support account is not). A task for nobody is found on nobody's 「自分のタスク」.
 */
export const ownTaskStaff = (staffs: readonly { id: string }[] | undefined, accountId: string | undefined) =>
  accountId !== undefined && staffs?.some((s) => s.id === accountId) ? accountId : null;

/** One key factory for communications; its mutations invalidate only these keys (and tasks, below). */
export const communicationQueries = {
  all: ['communications'] as const,
  search: (api: ApiClient, body: CommunicationSearchInput) =>
    queryOptions({
      queryKey: [...communicationQueries.all, 'search', body] as const,
      queryFn: ({ signal }) => api.searchCommunications({ body, signal }),
    }),
  institutionSearch: (api: ApiClient, id: string, body: InstitutionCommunicationSearchInput) =>
    queryOptions({
      queryKey: [...communicationQueries.all, 'institution', id, body] as const,
      queryFn: ({ signal }) => api.searchForMedicalInstitution({ params: { id }, body, signal }),
    }),
  labels: (api: ApiClient) =>
    queryOptions({
      queryKey: [...communicationQueries.all, 'labels'] as const,
      queryFn: ({ signal }) => api.listCommunicationLabels({ query: {}, signal }),
    }),
  /**
   * Every label the tenant ever had, deleted ones flagged with the choices removed from each: what names the
   * values records keep of them (docs/decisions.md). Read only where a record holds such a value.
   */
  namingLabels: (api: ApiClient) =>
    queryOptions({
      queryKey: [...communicationQueries.all, 'labels', 'with-deleted'] as const,
      queryFn: ({ signal }) => api.listCommunicationLabels({ query: { include_deleted: true }, signal }),
    }),
  staffs: (api: ApiClient) =>
    queryOptions({
      queryKey: [...communicationQueries.all, 'staffs'] as const,
      queryFn: ({ signal }) => api.listStaffs({ query: {}, signal }),
      staleTime: 5 * 60_000,
    }),
};

export type CommunicationCreateValues = z.input<typeof CommunicationCreateInput>;

export const useCreateCommunication = () =>
  useApiMutation(
    (
      api,
      {
        institutionId,
        body,
        idempotencyKey,
      }: { institutionId: string; body: CommunicationCreateValues; idempotencyKey: string },
    ) => api.createForMedicalInstitution({ params: { id: institutionId }, body, idempotencyKey }),
    // Tasks entered with the record show on /tasks; the CRM page shows the last visit; the top page counts visits.
    [communicationQueries.all, taskQueries.all, ['medical-institutions'], ...staleFiguresAfter('communications')],
  );

export type CommunicationUpdateValues = z.input<typeof CommunicationUpdateInput>;

/** Saves an edit against the version it was based on: another save since is a 409 (If-Match). */
export const useUpdateCommunication = () =>
  useApiMutation(
    (api, { id, version, body }: { id: string; version: number; body: CommunicationUpdateValues }) =>
      api.updateCommunication({ params: { id }, body, ifMatch: version }),
    // The CRM page shows the last visit and the top page counts visits (an edit may change their date or type).
    [communicationQueries.all, ['medical-institutions'], ...staleFiguresAfter('communications')],
  );

/**
 * Deletes a record against the version it was read at (If-Match): a save since is a 409. Its tasks stay
 * without the link, so /tasks changes; the CRM page's last visit and the top page's counts may too.
 */
export const useDeleteCommunication = () =>
  useApiMutation(
    (api, { id, version }: { id: string; version: number }) =>
      api.deleteCommunication({ params: { id }, ifMatch: version }),
    [communicationQueries.all, taskQueries.all, ['medical-institutions'], ...staleFiguresAfter('communications')],
  );

export const useAddComment = () =>
  useApiMutation(
    (api, { id, comment }: { id: string; comment: string }) =>
      api.createComment({ params: { communication_id: id }, body: { comment } }),
    [communicationQueries.all],
  );

/** Its author's edit of a comment, against the version they read (If-Match): a stale one is a 409. */
export const useEditComment = () =>
  useApiMutation(
    (api, { id, commentId, version, comment }: { id: string; commentId: string; version: number; comment: string }) =>
      api.updateComment({ params: { communication_id: id, id: commentId }, body: { comment }, ifMatch: version }),
    [communicationQueries.all],
  );

export const useDeleteComment = () =>
  useApiMutation(
    (api, { id, commentId, version }: { id: string; commentId: string; version: number }) =>
      api.deleteComment({ params: { communication_id: id, id: commentId }, ifMatch: version }),
    [communicationQueries.all],
  );

export const useToggleLike = () =>
  useApiMutation(
    (api, { id, liked }: { id: string; liked: boolean }) =>
      liked
        ? api.unlike({ params: { communication_id: id } }).then(() => null)
        : api.like({ params: { communication_id: id } }),
    [communicationQueries.all],
  );

/** Spec §1 types by name (one list with the server's CSV exports). */
export const communicationTypeLabels = communicationTypeNames;
