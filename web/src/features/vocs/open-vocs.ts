import { useQueries, useQuery } from '@tanstack/react-query';
import type { VocListItem, VocStatus } from '@renkei/contracts';
import { useServices } from '../../app/services-context.tsx';
import { currentUserQueries } from '../current-user/current-user.queries.ts';
import { vocQueries } from './vocs.queries.ts';

/** Feedback still to act on. */
const openVocStatuses: readonly VocStatus[] = ['NOT_STARTED', 'IN_PROGRESS'];
const priorityRank = { HIGH: 0, MIDDLE: 1, LOW: 2 } as const;

/**
 * An institution's open VOCs (not started or in progress), most urgent first, then latest reported:
 * one list call per open status (the list filters one status at a time). `null` while loading, and
 * when the tenant does not have the feature.
 */
export function useOpenVocs(institutionId: string, perStatus = 20): { items: VocListItem[]; total: number } | null {
  const { api } = useServices();
  const user = useQuery(currentUserQueries.detail(api));
  const enabled = user.data?.features.includes('communications') === true;
  const lists = useQueries({
    queries: openVocStatuses.map((status) => ({
      ...vocQueries.list(api, { page: 1, per_page: perStatus, medical_institution_id: institutionId, status }),
      enabled,
    })),
  });
  if (!enabled || lists.some((l) => !l.data)) return null;
  const items = lists
    .flatMap((l) => l.data!.data)
    .sort(
      (a, b) =>
        priorityRank[a.priority] - priorityRank[b.priority] ||
        b.reported_date.localeCompare(a.reported_date) ||
        a.id.localeCompare(b.id),
    );
  return { items, total: lists.reduce((n, l) => n + l.data!.meta.total_count, 0) };
}
