import { createFileRoute, useNavigate } from '@tanstack/react-router';
import { toast } from '../../app/toast.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';
import { DashboardForm, emptyDashboard } from '../../features/dashboards/components/DashboardForm.tsx';
import { useCreateDashboard } from '../../features/dashboards/dashboards.queries.ts';
import { useMutationErrorHandler } from '../../errors/useMutationErrorHandler.ts';
import { isApiError } from '../../api/api-errors.ts';

export const Route = createFileRoute('/_authenticated/dashboards/new')({
  staticData: { title: 'ダッシュボード作成' },
  beforeLoad: ({ context }) => requireFeature(context.user, 'dashboard'),
  component: NewDashboardRoute,
});

function NewDashboardRoute() {
  const { user } = Route.useRouteContext();
  const navigate = useNavigate();
  const create = useCreateDashboard();
  const onError = useMutationErrorHandler();
  return (
    <DashboardForm
      title="ダッシュボード作成"
      initial={emptyDashboard}
      features={user.features}
      onCancel={() => void navigate({ to: '/dashboards', search: { page: 1 } })}
      onSave={async (body) => {
        try {
          const created = await create.mutateAsync(body);
          toast.success('ダッシュボードを作成しました');
          void navigate({ to: '/dashboards/$id', params: { id: created.id } });
        } catch (error) {
          // A 422 stays on the form's fields; anything else is reported.
          if (!isApiError(error) || error.status !== 422) onError(error);
          throw error;
        }
      }}
    />
  );
}
