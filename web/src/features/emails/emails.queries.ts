import { queryOptions } from '@tanstack/react-query';
import type { EmailReportFilter, EmailStatus } from '@renkei/contracts';
import type { ApiClient } from '../../api/api-client.ts';
import { useApiMutation } from '../../api/useApiMutation.ts';

export interface EmailListParams {
  page: number;
  per_page: number;
  status: EmailStatus;
}

/** One key factory for the emails feature; its mutations invalidate only these keys. */
export const emailQueries = {
  all: ['emails'] as const,
  list: (api: ApiClient, params: EmailListParams) =>
    queryOptions({
      queryKey: [...emailQueries.all, 'list', params] as const,
      queryFn: ({ signal }) => api.listEmails({ query: params, signal }),
    }),
  /** Only the count of a tab (the other tab's badge). */
  count: (api: ApiClient, status: EmailStatus) =>
    queryOptions({
      queryKey: [...emailQueries.all, 'count', status] as const,
      queryFn: ({ signal }) => api.listEmails({ query: { status, page: 1, per_page: 1 }, signal }),
      select: (page) => page.meta.total_count,
    }),
  detail: (api: ApiClient, id: string) =>
    queryOptions({
      queryKey: [...emailQueries.all, 'detail', id] as const,
      queryFn: ({ signal }) => api.getEmail({ params: { id }, signal }),
    }),
  stats: (api: ApiClient, id: string) =>
    queryOptions({
      queryKey: [...emailQueries.all, 'stats', id] as const,
      queryFn: ({ signal }) => api.getEmailStats({ params: { id }, signal }),
    }),
  reports: (api: ApiClient, id: string, page: number, filter?: EmailReportFilter) =>
    queryOptions({
      queryKey: [...emailQueries.all, 'reports', id, page, filter ?? null] as const,
      queryFn: ({ signal }) => api.listEmailReports({ params: { id }, query: { page, per_page: 50, filter }, signal }),
    }),
  timeline: (api: ApiClient, id: string) =>
    queryOptions({
      queryKey: [...emailQueries.all, 'timeline', id] as const,
      queryFn: ({ signal }) => api.getEmailTimeline({ params: { id }, signal }),
    }),
  destinations: (api: ApiClient, keyword: string) =>
    queryOptions({
      queryKey: [...emailQueries.all, 'destinations', keyword] as const,
      queryFn: ({ signal }) =>
        api.listEmailDestinations({ query: { keyword: keyword || undefined, page: 1, per_page: 50 }, signal }),
    }),
};

export interface EmailDraftValues {
  title: string;
  sender_name: string;
  sender_email: string;
  main_content: string;
  doctor_ids: string[];
  /** The uploaded file sent with every mail; null: none (saving null removes the draft's). */
  attachment_id: string | null;
}

/**
 * Create or update: multipart, the draft as the JSON part `stringified` and the recipients file
 * beside it (spec §3). The typed client sends a FormData body as it is.
 */
export const useSaveEmail = () =>
  useApiMutation(
    (
      api: ApiClient,
      {
        id,
        version,
        values,
        file,
      }: { id: string | null; version: number | null; values: EmailDraftValues; file: File | null },
    ) => {
      const form = new FormData();
      form.append('stringified', JSON.stringify(values));
      if (file) form.append('recipients_file', file, file.name);
      // The typed client passes a FormData body through untouched (the contract's fields are its parts).
      const body = form as unknown as { stringified: string };
      return id ? api.updateEmail({ params: { id }, body, ifMatch: version ?? undefined }) : api.createEmail({ body });
    },
    [emailQueries.all],
  );

export const useDeleteEmail = () =>
  useApiMutation((api, { id }: { id: string }) => api.deleteEmail({ params: { id } }), [emailQueries.all]);

export const useCopyEmail = () =>
  useApiMutation((api, { id }: { id: string }) => api.copyEmail({ params: { id } }), [emailQueries.all]);

export const useSendEmail = () =>
  useApiMutation((api, { id }: { id: string }) => api.sendEmail({ params: { id } }), [emailQueries.all]);

export const useResumeEmailSend = () =>
  useApiMutation((api, { id }: { id: string }) => api.resumeEmailSend({ params: { id } }), [emailQueries.all]);

export const useSendEmailForTest = () =>
  useApiMutation(
    (api, { id, addresses }: { id: string; addresses: string[] }) =>
      api.sendEmailForTest({ params: { id }, body: { email_addresses: addresses } }),
    [],
  );
