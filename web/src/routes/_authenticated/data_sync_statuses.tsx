import { createFileRoute } from '@tanstack/react-router';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { DataSyncStatusPage } from '../../features/data-sync-statuses/components/DataSyncStatusPage.tsx';

export const Route = createFileRoute('/_authenticated/data_sync_statuses')({
  staticData: { title: 'データ連携状況' },
  beforeLoad: ({ context }) => requireFeature(context.user, 'data_uploads'),
  component: DataSyncStatusRoute,
});

function DataSyncStatusRoute() {
  const { user } = Route.useRouteContext();
  return <DataSyncStatusPage canUpload={user?.role === 'owner'} />;
}
