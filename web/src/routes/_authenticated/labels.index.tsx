import { Stack, Tabs, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import { createFileRoute } from '@tanstack/react-router';
import { enumParam, type SearchInput } from '../../app/search-params.ts';
import { useServices } from '../../app/services-context.tsx';
import { CommunicationLabelsPanel } from '../../features/labels/components/CommunicationLabelsPanel.tsx';
import { InstitutionLabelsPanel } from '../../features/labels/components/InstitutionLabelsPanel.tsx';
import { communicationQueries } from '../../features/communications/communications.queries.ts';
import { labelQueries } from '../../features/labels/labels.queries.ts';
import { OwnDepartmentsPanel } from '../../features/own-departments/components/OwnDepartmentsPanel.tsx';
import { PhaseMastersPanel } from '../../features/phase-masters/components/PhaseMastersPanel.tsx';
import { referenceDataQueries } from '../../features/reference-data/reference-data.queries.ts';
import { requireFeature } from '../../features/current-user/require-feature.ts';

// Phase masters and own departments live here too: the spec gives them no page, and they are the
// same kind of tenant vocabulary as labels (docs/decisions.md).
const LabelsSearch = (search: SearchInput) => ({
  tab: enumParam(
    search.tab,
    ['MedicalInstitutionLabels', 'CommunicationLabels', 'PhaseMasters', 'OwnDepartments'],
    'MedicalInstitutionLabels',
  ),
});

export const Route = createFileRoute('/_authenticated/labels/')({
  staticData: { title: 'ラベル管理' },
  validateSearch: LabelsSearch,
  beforeLoad: ({ context }) => {
    requireFeature(context.user, 'labels');
    requireFeature(context.user, 'medical_institution_labels');
  },
  loaderDeps: ({ search }) => ({ tab: search.tab }),
  loader: async ({ context, deps }) => {
    const [, tenant] = await Promise.all([
      context.queryClient.ensureQueryData(labelQueries.institutionLabels(context.api)),
      context.queryClient.ensureQueryData(referenceDataQueries.tenant(context.api)),
    ]);
    if (deps.tab === 'PhaseMasters' && tenant.enabled_phase)
      await context.queryClient.ensureQueryData(referenceDataQueries.phaseMasters(context.api));
    if (deps.tab === 'OwnDepartments') {
      // The master departments only name the optional link in the table: fetched, not awaited.
      void context.queryClient.prefetchQuery(referenceDataQueries.departments(context.api));
      await context.queryClient.ensureQueryData(referenceDataQueries.ownDepartments(context.api));
    }
    if (deps.tab === 'CommunicationLabels' && context.user?.features.includes('communication_labels'))
      await context.queryClient.ensureQueryData(communicationQueries.labels(context.api));
  },
  component: LabelsRoute,
});

function LabelsRoute() {
  const { tab: requested } = Route.useSearch();
  const { user } = Route.useRouteContext();
  const { api } = useServices();
  const { data: tenant } = useSuspenseQuery(referenceDataQueries.tenant(api));
  const navigate = Route.useNavigate();
  const communicationLabels = user.features.includes('communication_labels');
  // A link to a tab the tenant does not have (no phases, no communication labels) opens the labels instead.
  const tab =
    (requested === 'PhaseMasters' && !tenant.enabled_phase) ||
    (requested === 'CommunicationLabels' && !communicationLabels)
      ? 'MedicalInstitutionLabels'
      : requested;
  return (
    <Stack gap="md">
      <Title order={2} fz="xl">
        ラベル管理
      </Title>
      <Tabs value={tab} onChange={(v) => v && void navigate({ search: { tab: v as typeof tab } })}>
        <Tabs.List>
          <Tabs.Tab value="MedicalInstitutionLabels">医療機関ラベル</Tabs.Tab>
          {communicationLabels && (
            <Tabs.Tab value="CommunicationLabels" data-testid="communication-labels-tab">
              活動ラベル
            </Tabs.Tab>
          )}
          {tenant.enabled_phase && (
            <Tabs.Tab value="PhaseMasters" data-testid="phase-masters-tab">
              フェーズ
            </Tabs.Tab>
          )}
          <Tabs.Tab value="OwnDepartments" data-testid="own-departments-tab">
            自院診療科
          </Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="MedicalInstitutionLabels" pt="md">
          <InstitutionLabelsPanel canEdit={user.role === 'owner'} />
        </Tabs.Panel>
        {communicationLabels && (
          <Tabs.Panel value="CommunicationLabels" pt="md">
            {tab === 'CommunicationLabels' && <CommunicationLabelsPanel canEdit={user.role === 'owner'} />}
          </Tabs.Panel>
        )}
        {tenant.enabled_phase && (
          <Tabs.Panel value="PhaseMasters" pt="md">
            {tab === 'PhaseMasters' && <PhaseMastersPanel canEdit={user.role === 'owner'} />}
          </Tabs.Panel>
        )}
        <Tabs.Panel value="OwnDepartments" pt="md">
          {tab === 'OwnDepartments' && <OwnDepartmentsPanel canEdit={user.role === 'owner'} />}
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
