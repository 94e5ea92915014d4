import { createFileRoute } from '@tanstack/react-router';
import { requireCsAccount } from '../../features/current-user/require-cs-account.ts';
import { TenantSettingPage } from '../../features/tenant-settings/components/TenantSettingPage.tsx';
import { tenantSettingQueries } from '../../features/tenant-settings/tenant-settings.queries.ts';

export const Route = createFileRoute('/_authenticated/tenant_setting')({
  staticData: { title: 'テナント設定' },
  beforeLoad: ({ context }) => requireCsAccount(context.user),
  loader: ({ context }) => context.queryClient.ensureQueryData(tenantSettingQueries.detail(context.api)),
  component: TenantSettingPage,
});
