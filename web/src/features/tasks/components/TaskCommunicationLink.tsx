import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import type { Task } from '@renkei/contracts';
import type { MouseEvent } from 'react';
import { isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { communicationAnchor } from '../../communications/communication-anchor.ts';
import { AnchorLink } from '../../medical-institutions/components/router-links.tsx';

/** The newest first timeline, as the CRM page's recent communications link to it. */
const timeline = { page: 1, sort: 'desc' } as const;

/**
 * 「元の活動記録」: the communication a task was made with, at its place on the institution's timeline.
 * A plain click reads the record first and opens the timeline on the record's day, so the record is on
 * the page the anchor scrolls to however old it is; the href (a new tab) is the timeline's first page.
 */
export function TaskCommunicationLink({ task }: { task: Task & { communication_id: string } }) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const onError = useMutationErrorHandler();
  const hash = communicationAnchor(task.communication_id);

  const open = async (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    try {
      const c = await queryClient.fetchQuery({
        queryKey: ['communications', 'detail', task.communication_id],
        queryFn: ({ signal }) => api.getCommunication({ params: { id: task.communication_id }, signal }),
      });
      const search = { ...timeline, from: c.acted_date, to: c.acted_date };
      await (c.medical_institution
        ? navigate({ to: '/crms/$id/communications', params: { id: c.medical_institution.id }, search, hash })
        : navigate({ to: '/communications', search, hash }));
    } catch (error) {
      if (isApiError(error) && error.status === 404) toast.error('元の活動記録は削除されています。');
      else onError(error);
    }
  };

  const institutionId = task.medical_institution?.id;
  return institutionId ? (
    <AnchorLink
      to="/crms/$id/communications"
      params={{ id: institutionId }}
      search={timeline}
      hash={hash}
      size="sm"
      onClick={(e) => void open(e)}
    >
      元の活動記録
    </AnchorLink>
  ) : (
    <AnchorLink to="/communications" search={timeline} hash={hash} size="sm" onClick={(e) => void open(e)}>
      元の活動記録
    </AnchorLink>
  );
}
