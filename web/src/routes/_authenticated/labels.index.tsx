import { Stack, Tabs, Title } from '@mantine/core';
import { createFileRoute } from '@tanstack/react-router';
import { enumParam, type SearchInput } from '../../app/search-params.ts';
import { InstitutionLabelsPanel } from '../../features/labels/components/InstitutionLabelsPanel.tsx';
import { labelQueries } from '../../features/labels/labels.queries.ts';
import { requireFeature } from '../../features/require-feature.ts';

// Communication labels get their tab when their module lands; until then every link opens this one.
const LabelsSearch = (search: SearchInput) => ({
  tab: enumParam(search.tab, ['MedicalInstitutionLabels'], 'MedicalInstitutionLabels'),
});

export const Route = createFileRoute('/_authenticated/labels/')({
  staticData: { title: 'ラベル管理' },
  validateSearch: LabelsSearch,
  beforeLoad: ({ context }) => {
    requireFeature(context.user, 'labels');
    requireFeature(context.user, 'medical_institution_labels');
  },
  loader: ({ context }) => context.queryClient.ensureQueryData(labelQueries.institutionLabels(context.api)),
  component: LabelsRoute,
});

function LabelsRoute() {
  const { tab } = Route.useSearch();
  const navigate = Route.useNavigate();
  return (
    <Stack gap="md">
      <Title order={2} fz="xl">
        ラベル管理
      </Title>
      <Tabs value={tab} onChange={(v) => v && void navigate({ search: { tab: v as typeof tab } })}>
        <Tabs.List>
          <Tabs.Tab value="MedicalInstitutionLabels">医療機関ラベル</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="MedicalInstitutionLabels" pt="md">
          <InstitutionLabelsPanel />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
