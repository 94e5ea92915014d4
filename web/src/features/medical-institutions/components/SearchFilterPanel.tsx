import {
  ActionIcon,
  Button,
  Checkbox,
  Group,
  MultiSelect,
  NumberInput,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  TagsInput,
  Text,
  TextInput,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { RunningStatus, type LabelFilter, type MedicalInstitutionLabel } from '@renkei/contracts';
import { useEffect, useState, type FormEvent } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { labelQueries } from '../../labels/labels.queries.ts';
import { prefectures } from '../../reference-data/prefectures.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { tagQueries } from '../../tags/tags.queries.ts';
import { runningStatusLabel } from '../labels-ja.ts';
import type { InstitutionFilters, TagGroupState } from '../search-state.ts';
import { VisitReferralFilters, visitReferralErrors } from './VisitReferralFilters.tsx';

export interface SearchFilterPanelProps {
  filters: InstitutionFilters;
  onApply: (filters: InstitutionFilters) => void;
  onClear: () => void;
}

const logicLabel = {
  and: 'すべて含む (AND)',
  or: 'いずれか含む (OR)',
  nand: 'すべては含まない (NAND)',
  nor: 'いずれも含まない (NOR)',
};

/** The filters are edited as a draft and applied together, so one search runs per change of mind. */
export function SearchFilterPanel({ filters, onApply, onClear }: SearchFilterPanelProps) {
  const { api } = useServices();
  const [draft, setDraft] = useState<InstitutionFilters>(filters);
  useEffect(() => setDraft(filters), [filters]);

  const departments = useQuery(referenceDataQueries.departments(api));
  const facilityGroups = useQuery(referenceDataQueries.facilityTypeGroups(api));
  const tenant = useQuery(referenceDataQueries.tenant(api));
  const phases = useQuery({ ...referenceDataQueries.phaseMasters(api), enabled: tenant.data?.enabled_phase === true });
  const tags = useQuery(tagQueries.list(api, { page: 1, per_page: 100, sort: 'asc' }));
  const labels = useQuery({ ...labelQueries.institutionLabels(api), retry: false });

  const set = <K extends keyof InstitutionFilters>(key: K, value: InstitutionFilters[K]) =>
    setDraft((d) => ({ ...d, [key]: value }));
  const list = (values: string[]) => (values.length ? values : undefined);

  const [showErrors, setShowErrors] = useState(false);
  const errors = visitReferralErrors(draft);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (Object.keys(errors).length > 0) {
      setShowErrors(true);
      return;
    }
    setShowErrors(false);
    // 指定日以降訪問なし chosen but left without its day is no condition.
    const { not_visited_since, ...rest } = draft;
    onApply(not_visited_since ? { ...rest, not_visited_since } : rest);
  };

  const tagData = (tags.data?.data ?? []).map((t) => ({ value: t.id, label: t.name }));
  const areaLabels = (labels.data ?? []).filter((l) => l.component_type === 'area');
  const areaData = areaLabels.map((l) => ({
    group: l.name,
    items: l.areas.map((a) => ({ value: a.id, label: a.name })),
  }));
  const groups = draft.tag_groups ?? [];
  const setGroup = (i: number, next: TagGroupState | null) => {
    const copy = [...groups];
    if (next) copy[i] = next;
    else copy.splice(i, 1);
    set('tag_groups', copy.length ? copy : undefined);
  };

  return (
    <form onSubmit={submit} aria-label="検索条件">
      <Stack gap="sm">
        <TextInput
          label="キーワード"
          placeholder="名称・カナ・住所・医療機関コード"
          value={draft.keyword ?? ''}
          onChange={(e) => set('keyword', e.currentTarget.value || undefined)}
          data-testid="filter-keyword"
        />
        <MultiSelect
          label="都道府県"
          data={prefectures.map((p) => ({ value: p.code, label: p.name }))}
          value={draft.prefectures ?? []}
          onChange={(v) => set('prefectures', list(v))}
          searchable
          clearable
        />
        <TagsInput
          label="市区町村"
          description="入力してEnterで追加"
          value={draft.cities ?? []}
          onChange={(v) => set('cities', list(v))}
          clearable
        />
        {areaData.length > 0 && (
          <MultiSelect
            label="エリア"
            data={areaData}
            value={draft.area_ids ?? []}
            onChange={(v) => set('area_ids', list(v))}
            searchable
            clearable
          />
        )}
        <MultiSelect
          label="施設区分"
          data={(facilityGroups.data ?? []).map((g) => ({
            group: g.name,
            items: g.facility_types.map((f) => ({ value: f.id, label: f.name })),
          }))}
          value={draft.facility_type_ids ?? []}
          onChange={(v) => set('facility_type_ids', list(v))}
          searchable
          clearable
        />
        <MultiSelect
          label="診療科"
          data={(departments.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
          value={draft.department_ids ?? []}
          onChange={(v) => set('department_ids', list(v))}
          searchable
          clearable
        />
        <Stack gap={4}>
          <Text size="sm" fw={500}>
            タグ
          </Text>
          {groups.map((group, i) => (
            <Paper key={i} withBorder p="xs" data-testid="tag-filter-group">
              <Stack gap={6}>
                <Group gap="xs" justify="space-between" wrap="nowrap">
                  <SegmentedControl
                    size="xs"
                    data={[
                      { value: 'include', label: '含む' },
                      { value: 'exclude', label: '除外' },
                    ]}
                    value={group.search_condition}
                    onChange={(v) =>
                      setGroup(i, { ...group, search_condition: v as TagGroupState['search_condition'] })
                    }
                  />
                  <ActionIcon
                    variant="subtle"
                    color="gray"
                    aria-label="このタグ条件を削除"
                    onClick={() => setGroup(i, null)}
                  >
                    ×
                  </ActionIcon>
                </Group>
                <Select
                  size="xs"
                  aria-label="タグ条件の結合"
                  data={Object.entries(logicLabel).map(([value, label]) => ({ value, label }))}
                  value={group.logic}
                  onChange={(v) => v && setGroup(i, { ...group, logic: v as TagGroupState['logic'] })}
                  allowDeselect={false}
                />
                <MultiSelect
                  size="xs"
                  aria-label="タグ"
                  placeholder="タグを選択"
                  data-testid="tag-filter-tags"
                  data={tagData}
                  value={group.tag_ids}
                  onChange={(v) => setGroup(i, { ...group, tag_ids: v })}
                  searchable
                />
              </Stack>
            </Paper>
          ))}
          {groups.length < 10 && (
            <Button
              variant="light"
              size="xs"
              onClick={() => set('tag_groups', [...groups, { search_condition: 'include', logic: 'or', tag_ids: [] }])}
            >
              タグ条件を追加
            </Button>
          )}
        </Stack>
        {tenant.data?.enabled_phase && (
          <Stack gap={4}>
            <MultiSelect
              label="フェーズ"
              data={(phases.data ?? []).map((p) => ({ value: p.id, label: p.name }))}
              value={draft.phase_master_ids ?? []}
              onChange={(v) => set('phase_master_ids', list(v))}
              clearable
            />
            <Checkbox
              size="xs"
              label="フェーズ未設定も含める"
              checked={draft.include_no_phase ?? false}
              onChange={(e) => set('include_no_phase', e.currentTarget.checked || undefined)}
            />
          </Stack>
        )}
        <Checkbox.Group
          label="運営状況"
          value={draft.running_statuses ?? []}
          onChange={(v) => set('running_statuses', list(v) as InstitutionFilters['running_statuses'])}
        >
          <Group gap="sm" mt={4}>
            {RunningStatus.options.map((s) => (
              <Checkbox key={s} value={s} label={runningStatusLabel[s]} />
            ))}
          </Group>
        </Checkbox.Group>
        <VisitReferralFilters draft={draft} onChange={setDraft} errors={showErrors ? errors : {}} />
        {(labels.data ?? []).length > 0 && (
          <LabelFiltersEditor
            labels={labels.data ?? []}
            value={draft.label_filters ?? []}
            onChange={(v) => set('label_filters', v.length ? v : undefined)}
          />
        )}
        <Group gap="xs" grow>
          <Button variant="default" onClick={onClear}>
            クリア
          </Button>
          <Button type="submit" data-testid="filter-apply">
            検索
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function LabelFiltersEditor({
  labels,
  value,
  onChange,
}: {
  labels: MedicalInstitutionLabel[];
  value: LabelFilter[];
  onChange: (v: LabelFilter[]) => void;
}) {
  const { api } = useServices();
  const ownDepartments = useQuery({
    ...referenceDataQueries.ownDepartments(api),
    enabled: labels.some((l) => l.component_type === 'own_department'),
  });
  const update = (i: number, next: LabelFilter | null) => {
    const copy = [...value];
    if (next) copy[i] = next;
    else copy.splice(i, 1);
    onChange(copy);
  };
  const unused = labels.filter((l) => !value.some((f) => f.label_id === l.id));
  return (
    <Stack gap={4}>
      <Text size="sm" fw={500}>
        ラベル
      </Text>
      {value.map((filter, i) => {
        const label = labels.find((l) => l.id === filter.label_id);
        if (!label) return null;
        const choices = label.selections.map((s) => ({ value: s.id, label: s.label }));
        return (
          <Paper key={filter.label_id} withBorder p="xs">
            <Stack gap={6}>
              <Group justify="space-between" wrap="nowrap">
                <Text size="sm">{label.name}</Text>
                <ActionIcon
                  variant="subtle"
                  color="gray"
                  aria-label={`${label.name}の条件を削除`}
                  onClick={() => update(i, null)}
                >
                  ×
                </ActionIcon>
              </Group>
              {filter.is_empty ? null : label.component_type === 'text' ||
                label.component_type === 'textarea' ||
                label.component_type === 'time' ? (
                <TextInput
                  size="xs"
                  aria-label={`${label.name}の検索文字列`}
                  value={filter.text ?? ''}
                  onChange={(e) => update(i, { ...filter, text: e.currentTarget.value || undefined })}
                />
              ) : label.component_type === 'integer' ? (
                <Group grow gap="xs">
                  <NumberInput
                    size="xs"
                    aria-label="下限"
                    placeholder="下限"
                    allowDecimal={false}
                    value={filter.integer_min ?? ''}
                    onChange={(v) => update(i, { ...filter, integer_min: typeof v === 'number' ? v : undefined })}
                  />
                  <NumberInput
                    size="xs"
                    aria-label="上限"
                    placeholder="上限"
                    allowDecimal={false}
                    value={filter.integer_max ?? ''}
                    onChange={(v) => update(i, { ...filter, integer_max: typeof v === 'number' ? v : undefined })}
                  />
                </Group>
              ) : label.component_type === 'date' ? (
                <Group grow gap="xs">
                  <TextInput
                    size="xs"
                    type="date"
                    aria-label="開始日"
                    value={filter.date_from ?? ''}
                    onChange={(e) => update(i, { ...filter, date_from: e.currentTarget.value || undefined })}
                  />
                  <TextInput
                    size="xs"
                    type="date"
                    aria-label="終了日"
                    value={filter.date_to ?? ''}
                    onChange={(e) => update(i, { ...filter, date_to: e.currentTarget.value || undefined })}
                  />
                </Group>
              ) : label.component_type === 'own_department' ? (
                <MultiSelect
                  size="xs"
                  aria-label={label.name}
                  data={(ownDepartments.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
                  value={filter.own_department_ids ?? []}
                  onChange={(v) => update(i, { ...filter, own_department_ids: v.length ? v : undefined })}
                />
              ) : label.component_type === 'area' ? (
                <MultiSelect
                  size="xs"
                  aria-label={label.name}
                  data={label.areas.map((a) => ({ value: a.id, label: a.name }))}
                  value={filter.area_ids ?? []}
                  onChange={(v) => update(i, { ...filter, area_ids: v.length ? v : undefined })}
                />
              ) : (
                <MultiSelect
                  size="xs"
                  aria-label={label.name}
                  data={choices}
                  value={filter.selection_ids ?? []}
                  onChange={(v) => update(i, { ...filter, selection_ids: v.length ? v : undefined })}
                />
              )}
              <Checkbox
                size="xs"
                label="未入力のもの"
                checked={filter.is_empty ?? false}
                onChange={(e) =>
                  update(i, { label_id: filter.label_id, is_empty: e.currentTarget.checked || undefined })
                }
              />
            </Stack>
          </Paper>
        );
      })}
      {unused.length > 0 && (
        <Select
          size="xs"
          aria-label="ラベル条件を追加"
          placeholder="ラベル条件を追加"
          data={unused.map((l) => ({ value: l.id, label: l.name }))}
          value={null}
          onChange={(id) => id && onChange([...value, { label_id: id }])}
        />
      )}
    </Stack>
  );
}
