import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute, useNavigate } from '@tanstack/react-router';
import { isApiError } from '../../api/api-errors.ts';
import { useServices } from '../../app/services-context.tsx';
import { toast } from '../../app/toast.ts';
import { useMutationErrorHandler } from '../../errors/useMutationErrorHandler.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { DashboardForm } from '../../features/dashboards/components/DashboardForm.tsx';
import { dashboardQueries, useUpdateDashboard } from '../../features/dashboards/dashboards.queries.ts';

const conflictMessage = 'ほかの人がこのダッシュボードを更新しました。画面を再読み込みしてから編集してください';

export const Route = createFileRoute('/_authenticated/dashboards/$id/edit')({
  staticData: { title: 'ダッシュボード編集' },
  beforeLoad: ({ context }) => requireFeature(context.user, 'dashboard'),
  loader: ({ context, params }) => context.queryClient.ensureQueryData(dashboardQueries.detail(context.api, params.id)),
  component: EditDashboardRoute,
});

function EditDashboardRoute() {
  const { id } = Route.useParams();
  const { user } = Route.useRouteContext();
  const { api } = useServices();
  const { data: dashboard } = useSuspenseQuery(dashboardQueries.detail(api, id));
  const navigate = useNavigate();
  const update = useUpdateDashboard();
  const onError = useMutationErrorHandler({ conflictMessage });
  return (
    <DashboardForm
      key={dashboard.version}
      title="ダッシュボード編集"
      initial={{
        name: dashboard.name,
        filter_department: dashboard.filter_department,
        medical_institution_label_id: dashboard.medical_institution_label_id,
        contents: dashboard.contents,
      }}
      features={user.features}
      onCancel={() => void navigate({ to: '/dashboards/$id', params: { id } })}
      onSave={async (body) => {
        try {
          await update.mutateAsync({ id, version: dashboard.version, body });
          toast.success('ダッシュボードを更新しました');
          void navigate({ to: '/dashboards/$id', params: { id } });
        } catch (error) {
          if (!isApiError(error) || error.status !== 422) onError(error);
          throw error;
        }
      }}
    />
  );
}
