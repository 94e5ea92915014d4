import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { ApiError } from '../../api/api-errors.ts';
import { isUuid } from '../../app/search-params.ts';
import { useServices } from '../../app/services-context.tsx';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { EmailEditorPage } from '../../features/emails/components/EmailEditorPage.tsx';
import { emailQueries } from '../../features/emails/emails.queries.ts';

export const Route = createFileRoute('/_authenticated/emails/$id/edit')({
  staticData: { title: 'メールの編集' },
  beforeLoad: ({ context, params }) => {
    requireFeature(context.user, 'emails');
    if (!isUuid(params.id)) throw new ApiError(404, 'ページが見つかりません');
  },
  loader: ({ context, params }) => context.queryClient.ensureQueryData(emailQueries.detail(context.api, params.id)),
  component: EditEmailRoute,
});

function EditEmailRoute() {
  const { id } = Route.useParams();
  const { user } = Route.useRouteContext();
  const { api } = useServices();
  const { data: email } = useSuspenseQuery(emailQueries.detail(api, id));
  const restricted = user.features.includes('email_sender_restricted') ? user.emailSenderAllowedAddresses : null;
  // The editor keeps its own state from the email it opened with: a new id is a new editor.
  return <EmailEditorPage key={id} email={email} restrictedSenders={restricted} userEmail={user.email} />;
}
