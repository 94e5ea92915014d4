import { Group, MultiSelect, SegmentedControl, Select, SimpleGrid, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { CommunicationLabel } from '@renkei/contracts';
import { useServices } from '../../../app/services-context.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { tagQueries } from '../../tags/tags.queries.ts';
import { communicationTypeLabels } from '../communications.queries.ts';
import { labelsForTypes, type LabelCondition } from '../communications-search.ts';
import type { CommunicationsParams } from './CommunicationsPage.tsx';
import { InstitutionFilter } from './InstitutionFilter.tsx';
import { LabelConditionField } from './LabelConditionField.tsx';

const doctorChoices = [
  { value: 'any', label: '指定なし' },
  { value: 'yes', label: 'あり' },
  { value: 'no', label: 'なし' },
];

/**
 * The search's further filters: institutions and their tags (not on one institution's timeline), doctor
 * attended, and conditions on the communication labels of the chosen types. Each change is applied to
 * the URL at once, as the filters above them are.
 */
export function CommunicationFilters({
  params,
  onParamsChange,
  labels,
  withInstitutions,
}: {
  params: CommunicationsParams;
  onParamsChange: (next: Partial<CommunicationsParams>) => void;
  labels: readonly CommunicationLabel[];
  withInstitutions: boolean;
}) {
  const { api } = useServices();
  const user = useQuery(currentUserQueries.detail(api));
  const withTags = withInstitutions && user.data?.features.includes('tags') === true;
  const tags = useQuery({ ...tagQueries.list(api, { page: 1, per_page: 100, sort: 'asc' }), enabled: withTags });
  const conditions = params.labels ?? [];
  const labelled = labelsForTypes(labels, params.types);
  const needsDepartments = conditions.some(
    (c) => labels.find((l) => l.id === c.label_id)?.component_type === 'own_department',
  );
  const ownDepartments = useQuery({ ...referenceDataQueries.ownDepartments(api), enabled: needsDepartments });

  const setConditions = (next: LabelCondition[]) => onParamsChange({ labels: next.length ? next : undefined, page: 1 });
  const addable = labelled.filter((l) => !conditions.some((c) => c.label_id === l.id));
  // Grouped by type when labels of several types are offered (no type chosen, or several).
  const byType = new Map<string, { value: string; label: string }[]>();
  for (const l of addable) {
    const group = communicationTypeLabels[l.communication_type];
    byType.set(group, [...(byType.get(group) ?? []), { value: l.id, label: l.name }]);
  }

  return (
    <Stack gap="sm" data-testid="communication-filters">
      <Group gap="sm" align="flex-end" wrap="wrap">
        {withInstitutions && (
          <InstitutionFilter
            value={params.institution_ids ?? []}
            onChange={(ids) => onParamsChange({ institution_ids: ids.length ? ids : undefined, page: 1 })}
            max={20}
          />
        )}
        {withTags && (
          <MultiSelect
            label="医療機関のタグ"
            data={(tags.data?.data ?? []).map((t) => ({ value: t.id, label: t.name }))}
            value={params.tag_ids ?? []}
            onChange={(ids) => onParamsChange({ tag_ids: ids.length ? ids : undefined, page: 1 })}
            searchable
            clearable
            nothingFoundMessage="タグがありません"
            w={{ base: '100%', sm: 260 }}
          />
        )}
        <Stack gap={4}>
          <Text size="sm" fw={500} id="doctor-attended-filter">
            医師面談
          </Text>
          <SegmentedControl
            aria-labelledby="doctor-attended-filter"
            data={doctorChoices}
            value={params.doctor_attended === undefined ? 'any' : params.doctor_attended ? 'yes' : 'no'}
            onChange={(v) => onParamsChange({ doctor_attended: v === 'any' ? undefined : v === 'yes', page: 1 })}
          />
        </Stack>
      </Group>
      <Stack gap={6}>
        <Select
          label="ラベルの条件を追加"
          placeholder={
            addable.length
              ? params.types?.length
                ? '選んだ種別のラベル'
                : 'ラベルを選択'
              : '追加できるラベルはありません'
          }
          data={[...byType].map(([group, items]) => ({ group, items }))}
          value={null}
          onChange={(id) => id && setConditions([...conditions, { label_id: id }])}
          disabled={addable.length === 0 || conditions.length >= 20}
          searchable
          w={{ base: '100%', sm: 320 }}
        />
        {conditions.length > 0 && (
          <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="sm">
            {conditions.map((c, i) => {
              const label = labels.find((l) => l.id === c.label_id);
              // A label deleted since the link was made: its condition is not sent (effectiveConditions).
              if (!label) return null;
              return (
                <LabelConditionField
                  key={c.label_id}
                  label={label}
                  condition={c}
                  ownDepartments={ownDepartments.data ?? []}
                  onChange={(next) => setConditions(conditions.map((x, j) => (j === i ? next : x)))}
                  onRemove={() => setConditions(conditions.filter((_, j) => j !== i))}
                />
              );
            })}
          </SimpleGrid>
        )}
      </Stack>
    </Stack>
  );
}
