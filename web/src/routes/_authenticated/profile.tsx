import { createFileRoute } from '@tanstack/react-router';
import { ProfilePage } from '../../features/profile/components/ProfilePage.tsx';
import { profileQueries } from '../../features/profile/profile.queries.ts';

export const Route = createFileRoute('/_authenticated/profile')({
  staticData: { title: '個人設定' },
  loader: ({ context }) => context.queryClient.ensureQueryData(profileQueries.detail(context.api)),
  component: ProfilePage,
});
