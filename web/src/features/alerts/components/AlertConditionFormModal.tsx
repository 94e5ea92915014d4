import {
  Checkbox,
  Divider,
  Group,
  Modal,
  MultiSelect,
  NumberInput,
  SegmentedControl,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { AlertConditionInput, alertAverageMax, alertCountMax } from '@renkei/contracts';
import { useState, type ReactNode } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { labelQueries } from '../../labels/labels.queries.ts';
import { prefectures } from '../../reference-data/prefectures.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { allTagsQuery, type AlertConditionInputValues } from '../alerts.queries.ts';
import { useReturnFocus } from '../../../ui/useReturnFocus.ts';

type Direction = 'increase' | 'decrease';
type Comparison = 'gte' | 'lte';
type Num = number | string;

export interface AlertConditionFormValues {
  name: string;
  type: 'referral' | 'communication';
  changeCount: { on: boolean; direction: Direction; count: Num };
  changeRate: { on: boolean; direction: Direction; rate: Num };
  count: { on: boolean; comparison: Comparison; count: Num };
  average: { on: boolean; comparison: Comparison; average: Num; months: Num };
  visit: { on: boolean; days: Num };
  prefecture: string | null;
  area: string | null;
  facility_type_ids: string[];
  department_ids: string[];
  tag_ids: string[];
  countRange: { min: Num; max: Num };
  averageRange: { min: Num; max: Num };
  visited: 'all' | 'visited' | 'not_visited';
}

const emptyAlertConditionForm = (): AlertConditionFormValues => ({
  name: '',
  type: 'referral',
  changeCount: { on: false, direction: 'decrease', count: 3 },
  changeRate: { on: true, direction: 'decrease', rate: 50 },
  count: { on: false, comparison: 'gte', count: 1 },
  average: { on: false, comparison: 'gte', average: 3, months: 6 },
  visit: { on: false, days: 90 },
  prefecture: null,
  area: null,
  facility_type_ids: [],
  department_ids: [],
  tag_ids: [],
  countRange: { min: '', max: '' },
  averageRange: { min: '', max: '' },
  visited: 'all',
});

// An empty NumberInput is '' (Mantine): sent as NaN it would be a type error, so it is sent as null and
// the contract names the field.
const num = (v: Num): number => (v === '' ? Number.NaN : Number(v));
const optional = (v: Num): number | null => (v === '' ? null : Number(v));

/** The form's values as the API's body. */
function toAlertConditionInput(v: AlertConditionFormValues): AlertConditionInputValues {
  const range = (r: { min: Num; max: Num }) =>
    r.min === '' && r.max === '' ? null : { min: optional(r.min), max: optional(r.max) };
  return {
    name: v.name,
    type: v.type,
    triggers: {
      referral_change_count: v.changeCount.on
        ? { direction: v.changeCount.direction, count: num(v.changeCount.count) }
        : null,
      referral_change_rate: v.changeRate.on
        ? { direction: v.changeRate.direction, rate: num(v.changeRate.rate) }
        : null,
      referral_count: v.count.on ? { comparison: v.count.comparison, count: num(v.count.count) } : null,
      referral_average: v.average.on
        ? { comparison: v.average.comparison, average: num(v.average.average), months: num(v.average.months) }
        : null,
      communication_visit: v.visit.on ? { days_without_visit: num(v.visit.days) } : null,
    },
    filters: {
      prefecture: v.prefecture,
      area: v.area,
      facility_type_ids: v.facility_type_ids,
      department_ids: v.department_ids,
      tag_ids: v.tag_ids,
      referral_count: range(v.countRange),
      referral_average: range(v.averageRange),
      communication_visit: v.visited,
    },
  };
}

/** The contract's own check, so the messages are the server's; keyed by the API's field paths. */
function validate(v: AlertConditionFormValues): Record<string, string> {
  const parsed = AlertConditionInput.safeParse(toAlertConditionInput(v));
  const out: Record<string, string> = {};
  if (!parsed.success) for (const issue of parsed.error.issues) out[issue.path.join('.')] ??= issue.message;
  return out;
}

/** The first message of a field or of anything under it (`filters.tag_ids.1` shows on the tag input). */
const errorOf = (errors: Record<string, string>, field: string) =>
  errors[field] ?? Object.entries(errors).find(([k]) => k.startsWith(`${field}.`))?.[1];

const directionOptions = [
  { value: 'decrease', label: '減少' },
  { value: 'increase', label: '増加' },
];
const comparisonOptions = [
  { value: 'gte', label: '以上' },
  { value: 'lte', label: '以下' },
];

function Trigger({
  label,
  checked,
  onToggle,
  error,
  children,
}: {
  label: string;
  checked: boolean;
  onToggle: (on: boolean) => void;
  error?: string | undefined;
  children: ReactNode;
}) {
  return (
    <Stack gap={4}>
      <Checkbox label={label} checked={checked} onChange={(e) => onToggle(e.currentTarget.checked)} />
      {checked && (
        <Group gap="xs" align="flex-start" pl="lg" wrap="wrap">
          {children}
        </Group>
      )}
      {error && (
        <Text size="xs" c="red" pl="lg">
          {error}
        </Text>
      )}
    </Stack>
  );
}

/** The create dialog of an alert condition: what to watch (triggers, all must hold) and where (filters). */
export function AlertConditionFormModal({
  opened,
  onClose,
  onSubmit,
}: {
  opened: boolean;
  onClose: () => void;
  onSubmit: (body: AlertConditionInputValues) => Promise<unknown>;
}) {
  useReturnFocus(opened);
  const { api } = useServices();
  const [values, setValues] = useState(emptyAlertConditionForm);
  const { errors, saving, submit } = useFormSubmit({
    values,
    validate,
    save: (v) => onSubmit(toAlertConditionInput(v)),
  });
  const labels = useQuery(labelQueries.institutionLabels(api));
  const facilityGroups = useQuery(referenceDataQueries.facilityTypeGroups(api));
  const departments = useQuery(referenceDataQueries.departments(api));
  const tags = useQuery(allTagsQuery(api));
  const set = <K extends keyof AlertConditionFormValues>(key: K, value: AlertConditionFormValues[K]) =>
    setValues((prev) => ({ ...prev, [key]: value }));
  const patch = <
    K extends 'changeCount' | 'changeRate' | 'count' | 'average' | 'visit' | 'countRange' | 'averageRange',
  >(
    key: K,
    value: Partial<AlertConditionFormValues[K]>,
  ) => setValues((prev) => ({ ...prev, [key]: { ...prev[key], ...value } }));

  const areaOptions = (labels.data ?? [])
    .filter((l) => l.component_type === 'area')
    .map((l) => ({ group: l.name, items: l.areas.map((a) => ({ value: a.id, label: a.name })) }));
  const facilityOptions = (facilityGroups.data ?? []).map((g) => ({
    group: g.name,
    items: g.facility_types.map((t) => ({ value: t.id, label: t.name })),
  }));

  return (
    <Modal opened={opened} onClose={onClose} title="アラート条件を作成" size="lg">
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <TextInput
            label="アラート名"
            required
            placeholder="例: 紹介減少（前月比50%以上減）"
            value={values.name}
            error={errors.name}
            onChange={(e) => set('name', e.currentTarget.value)}
          />
          <Stack gap={4}>
            <Text size="sm" fw={500}>
              種類
            </Text>
            <SegmentedControl
              aria-label="種類"
              value={values.type}
              onChange={(v) => {
                const type = v === 'communication' ? 'communication' : 'referral';
                setValues((prev) => ({
                  ...prev,
                  type,
                  // A visit alert needs its days; a referral alert starts from a referral trigger.
                  visit: type === 'communication' ? { ...prev.visit, on: true } : prev.visit,
                }));
              }}
              data={[
                { value: 'referral', label: '紹介' },
                { value: 'communication', label: '訪問' },
              ]}
            />
          </Stack>
          <Divider label="条件（すべて満たす医療機関が対象）" labelPosition="left" />
          {errors.triggers && (
            <Text size="sm" c="red">
              {errors.triggers}
            </Text>
          )}
          <Trigger
            label="前月比の紹介数の増減"
            checked={values.changeCount.on}
            onToggle={(on) => patch('changeCount', { on })}
            error={errorOf(errors, 'triggers.referral_change_count')}
          >
            <Text size="sm" pt={6}>
              前月比で
            </Text>
            <NumberInput
              aria-label="増減の件数"
              allowDecimal={false}
              max={alertCountMax}
              min={1}
              w={90}
              value={values.changeCount.count}
              onChange={(count) => patch('changeCount', { count })}
            />
            <Text size="sm" pt={6}>
              件以上
            </Text>
            <Select
              aria-label="増減の向き（件数）"
              w={100}
              data={directionOptions}
              value={values.changeCount.direction}
              onChange={(d) => patch('changeCount', { direction: (d as Direction | null) ?? 'decrease' })}
              allowDeselect={false}
            />
          </Trigger>
          <Trigger
            label="前月比の紹介数の増減率"
            checked={values.changeRate.on}
            onToggle={(on) => patch('changeRate', { on })}
            error={errorOf(errors, 'triggers.referral_change_rate')}
          >
            <Text size="sm" pt={6}>
              前月比で
            </Text>
            <NumberInput
              aria-label="増減率"
              min={0}
              max={1000}
              w={90}
              value={values.changeRate.rate}
              onChange={(rate) => patch('changeRate', { rate })}
            />
            <Text size="sm" pt={6}>
              %以上
            </Text>
            <Select
              aria-label="増減の向き（率）"
              w={100}
              data={directionOptions}
              value={values.changeRate.direction}
              onChange={(d) => patch('changeRate', { direction: (d as Direction | null) ?? 'decrease' })}
              allowDeselect={false}
            />
          </Trigger>
          <Text size="xs" c="dimmed" pl="lg" mt={-6}>
            前月に紹介がなかった医療機関は増減率を計算できないため対象になりません。
          </Text>
          <Trigger
            label="前月の紹介数"
            checked={values.count.on}
            onToggle={(on) => patch('count', { on })}
            error={errorOf(errors, 'triggers.referral_count')}
          >
            <NumberInput
              aria-label="前月の紹介数"
              allowDecimal={false}
              max={alertCountMax}
              min={0}
              w={90}
              value={values.count.count}
              onChange={(count) => patch('count', { count })}
            />
            <Text size="sm" pt={6}>
              件
            </Text>
            <Select
              aria-label="前月の紹介数の比較"
              w={100}
              data={comparisonOptions}
              value={values.count.comparison}
              onChange={(c) => patch('count', { comparison: (c as Comparison | null) ?? 'gte' })}
              allowDeselect={false}
            />
          </Trigger>
          <Trigger
            label="紹介の月平均"
            checked={values.average.on}
            onToggle={(on) => patch('average', { on })}
            error={errorOf(errors, 'triggers.referral_average')}
          >
            <Text size="sm" pt={6}>
              直近
            </Text>
            <NumberInput
              aria-label="平均する月数"
              min={1}
              max={24}
              w={80}
              value={values.average.months}
              onChange={(months) => patch('average', { months })}
            />
            <Text size="sm" pt={6}>
              か月の平均が
            </Text>
            <NumberInput
              aria-label="月平均の件数"
              max={alertAverageMax}
              min={0}
              decimalScale={1}
              w={90}
              value={values.average.average}
              onChange={(average) => patch('average', { average })}
            />
            <Text size="sm" pt={6}>
              件
            </Text>
            <Select
              aria-label="月平均の比較"
              w={100}
              data={comparisonOptions}
              value={values.average.comparison}
              onChange={(c) => patch('average', { comparison: (c as Comparison | null) ?? 'gte' })}
              allowDeselect={false}
            />
          </Trigger>
          <Trigger
            label="訪問していない期間"
            checked={values.visit.on}
            onToggle={(on) => patch('visit', { on })}
            error={errorOf(errors, 'triggers.communication_visit')}
          >
            <NumberInput
              aria-label="訪問していない日数"
              min={1}
              max={730}
              w={90}
              value={values.visit.days}
              onChange={(days) => patch('visit', { days })}
            />
            <Text size="sm" pt={6}>
              日以上訪問なし（一度も訪問していない医療機関を含む）
            </Text>
          </Trigger>
          <Divider label="対象の絞り込み（任意）" labelPosition="left" />
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Select
              label="都道府県"
              placeholder="すべて"
              clearable
              searchable
              data={prefectures.map((p) => ({ value: p.code, label: p.name }))}
              value={values.prefecture}
              error={errors['filters.prefecture']}
              onChange={(v) => set('prefecture', v)}
            />
            <Select
              label="エリア"
              placeholder={areaOptions.length === 0 ? 'エリアのラベルがありません' : 'すべて'}
              clearable
              disabled={areaOptions.length === 0}
              data={areaOptions}
              value={values.area}
              error={errors['filters.area']}
              onChange={(v) => set('area', v)}
            />
            <MultiSelect
              label="施設種別"
              placeholder="すべて"
              searchable
              data={facilityOptions}
              value={values.facility_type_ids}
              error={errorOf(errors, 'filters.facility_type_ids')}
              onChange={(v) => set('facility_type_ids', v)}
            />
            <MultiSelect
              label="診療科"
              placeholder="すべて"
              searchable
              data={(departments.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
              value={values.department_ids}
              error={errorOf(errors, 'filters.department_ids')}
              onChange={(v) => set('department_ids', v)}
            />
            <MultiSelect
              label="タグ（いずれかが付いた医療機関）"
              placeholder="すべて"
              searchable
              data={(tags.data ?? []).map((t) => ({ value: t.id, label: t.name }))}
              value={values.tag_ids}
              error={errorOf(errors, 'filters.tag_ids')}
              onChange={(v) => set('tag_ids', v)}
            />
            <Select
              label="訪問実績"
              data={[
                { value: 'all', label: 'すべて' },
                { value: 'visited', label: '訪問実績あり' },
                { value: 'not_visited', label: '訪問実績なし' },
              ]}
              value={values.visited}
              allowDeselect={false}
              onChange={(v) => set('visited', (v as AlertConditionFormValues['visited'] | null) ?? 'all')}
            />
          </SimpleGrid>
          <Group gap="xs" align="flex-start">
            <NumberInput
              label="前月の紹介数（下限）"
              allowDecimal={false}
              max={alertCountMax}
              min={0}
              w={170}
              value={values.countRange.min}
              error={errors['filters.referral_count.min'] ?? errors['filters.referral_count']}
              onChange={(min) => patch('countRange', { min })}
            />
            <NumberInput
              label="（上限）"
              allowDecimal={false}
              max={alertCountMax}
              min={0}
              w={120}
              value={values.countRange.max}
              error={errors['filters.referral_count.max']}
              onChange={(max) => patch('countRange', { max })}
            />
            <NumberInput
              label="紹介の月平均（下限）"
              max={alertAverageMax}
              min={0}
              decimalScale={1}
              w={170}
              value={values.averageRange.min}
              error={errors['filters.referral_average.min'] ?? errors['filters.referral_average']}
              onChange={(min) => patch('averageRange', { min })}
            />
            <NumberInput
              label="（上限）"
              max={alertAverageMax}
              min={0}
              decimalScale={1}
              w={120}
              value={values.averageRange.max}
              error={errors['filters.referral_average.max']}
              onChange={(max) => patch('averageRange', { max })}
            />
          </Group>
          <SaveCancelButtons saving={saving} onCancel={onClose} testId="alert-condition-save" mt="sm" />
        </Stack>
      </form>
    </Modal>
  );
}
