import { createFileRoute } from '@tanstack/react-router';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { EmailEditorPage } from '../../features/emails/components/EmailEditorPage.tsx';

export const Route = createFileRoute('/_authenticated/emails/new')({
  staticData: { title: 'メールの作成' },
  beforeLoad: ({ context }) => requireFeature(context.user, 'emails'),
  component: NewEmailRoute,
});

function NewEmailRoute() {
  const { user } = Route.useRouteContext();
  const restricted = user.features.includes('email_sender_restricted') ? user.emailSenderAllowedAddresses : null;
  return <EmailEditorPage email={null} restrictedSenders={restricted} userEmail={user.email} />;
}
