import { createFileRoute } from '@tanstack/react-router';
import { ProfilePage } from '../../features/profile/components/ProfilePage.tsx';
import { profileQueries } from '../../features/profile/profile.queries.ts';
import { referenceDataQueries } from '../../features/reference-data/reference-data.queries.ts';

export const Route = createFileRoute('/_authenticated/profile')({
  staticData: { title: '個人設定' },
  loader: ({ context }) =>
    Promise.all([
      context.queryClient.ensureQueryData(profileQueries.detail(context.api)),
      context.queryClient.ensureQueryData(referenceDataQueries.ownDepartments(context.api)),
    ]),
  component: ProfilePage,
});
