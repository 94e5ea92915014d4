import {
  Alert,
  Button,
  Group,
  MultiSelect,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Switch,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import type { ReportDefinition, ReportKind, ReportResult } from '@renkei/contracts';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useRef, useState, type ReactNode } from 'react';
import { fieldErrorsOf } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import {
  fiscalYearOf,
  periodOfFiscalYears,
  periodOfMonths,
  periodUnitLabels,
  requestOf,
  validateDefinition,
  yearBefore,
  type EditorValues,
} from '../report-editor.ts';
import { reportApi, reportKinds } from '../report-kinds.ts';
import { reportQueries, resultRowsPerPage } from '../reports.queries.ts';
import { DisplayItemsEditor } from './DisplayItemsEditor.tsx';
import { FilterConditionsEditor } from './FilterConditionsEditor.tsx';
import { ReportResultTable } from './ReportResultTable.tsx';
import { SortConditionsEditor } from './SortConditionsEditor.tsx';
import { UnsavedChangesGuard } from '../../../ui/UnsavedChangesGuard.tsx';

type Period = { from: string; to: string };

/** What a preview's rows depend on: everything but the report's name. */
const previewKeyOf = (values: EditorValues) => JSON.stringify({ ...requestOf(values), name: '' });

/**
 * The definition of a report: name, period, columns, filters and sorts; a preview runs it unsaved.
 * `onSave` creates or updates it (and rethrows a failure: a 422's messages land on their fields).
 */
export function ReportEditor({
  kind,
  initial,
  definition,
  onSave,
  onCancel,
}: {
  kind: ReportKind;
  initial: EditorValues;
  /** The saved definition being edited; none for a new report. */
  definition?: ReportDefinition;
  onSave: (values: EditorValues) => Promise<unknown>;
  onCancel: () => void;
}) {
  const info = reportKinds[kind];
  const { api } = useServices();
  const { data: items } = useSuspenseQuery(reportQueries.items(api, kind));
  const ownDepartments = useQuery({ ...referenceDataQueries.ownDepartments(api), enabled: info.ownDepartments });
  const onError = useMutationErrorHandler();
  const [values, setValues] = useState<EditorValues>(initial);
  const [preview, setPreview] = useState<{ result: ReportResult; key: string } | null>(null);
  const [previewing, setPreviewing] = useState(false);
  // Only the latest request may show (pages clicked quickly): an earlier answer arriving late is dropped.
  const previewRun = useRef(0);
  const savingNow = useRef(false);
  const [initialJson] = useState(() => JSON.stringify(requestOf(initial)));
  const { errors, setErrors, saving, submit } = useFormSubmit({
    values,
    validate: validateDefinition,
    save: async (v) => {
      // The page leaves once saved (to the report, or back to its view): that navigation is not a loss.
      savingNow.current = true;
      try {
        await onSave(requestOf(v));
      } finally {
        savingNow.current = false;
      }
    },
  });

  const settings = values.aggregation_settings;
  const setSettings = (next: Partial<EditorValues['aggregation_settings']>) =>
    setValues((v) => ({ ...v, aggregation_settings: { ...v.aggregation_settings, ...next } }));

  const runPreview = async (page: number) => {
    const local = validateDefinition(values);
    setErrors(local);
    if (Object.keys(local).length > 0) return;
    const run = ++previewRun.current;
    const key = previewKeyOf(values);
    setPreviewing(true);
    try {
      const result = await reportApi(api, kind).results({
        body: { definition: requestOf(values), page, per_page: resultRowsPerPage },
      });
      if (run === previewRun.current) setPreview({ result, key });
    } catch (error) {
      if (run !== previewRun.current) return;
      const fields = fieldErrorsOf(error);
      if (Object.keys(fields).length > 0) setErrors(fields);
      else onError(error);
    } finally {
      if (run === previewRun.current) setPreviewing(false);
    }
  };
  // Rows of settings since changed would read as the report's answer: they are hidden until the preview runs again.
  const previewStale = preview !== null && preview.key !== previewKeyOf(values);

  // A 422 may name a field no input shows (a server-only rule): it is listed, never dropped.
  const shown = (key: string) =>
    key === 'name' ||
    key === 'display_items' ||
    key.startsWith('aggregation_settings.') ||
    /^(display_items|filter_conditions|sort_conditions)\.\d+\./.test(key);
  const unplaced = Object.entries(errors).filter(([key]) => !shown(key));

  return (
    <>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="md">
          <Title order={2} fz="xl">
            {definition ? `${info.title}の編集` : `${info.title}の作成`}
          </Title>
          {unplaced.length > 0 && (
            <Alert color="red" data-testid="report-errors">
              {unplaced.map(([key, message]) => (
                <Text key={key} size="sm">
                  {message}
                </Text>
              ))}
            </Alert>
          )}
          <Section title="基本設定">
            <TextInput
              label="レポート名"
              required
              value={values.name}
              onChange={(e) => {
                const name = e.currentTarget.value;
                setValues((v) => ({ ...v, name }));
              }}
              error={errors.name}
              maw={480}
            />
          </Section>
          <Section title="集計期間">
            <Group gap="md" align="flex-end">
              <SegmentedControl
                aria-label="期間の指定"
                value={settings.unit_type}
                onChange={(unit) => {
                  const period = settings.period;
                  setSettings(
                    unit === 'year'
                      ? {
                          unit_type: 'year',
                          period: periodOfFiscalYears(fiscalYearOf(period.from), fiscalYearOf(period.to)),
                          comparison_period: null,
                          period_unit: 'fiscal_year',
                        }
                      : { unit_type: 'month', comparison_period: null, period_unit: 'month' },
                  );
                }}
                data={[
                  { value: 'month', label: '月で指定' },
                  { value: 'year', label: '年度で指定' },
                ]}
              />
              <Select
                label="集計単位"
                data={Object.entries(periodUnitLabels).map(([value, label]) => ({ value, label }))}
                value={settings.period_unit}
                onChange={(u) =>
                  u && setSettings({ period_unit: u as EditorValues['aggregation_settings']['period_unit'] })
                }
                error={errors['aggregation_settings.period_unit']}
                allowDeselect={false}
                w={120}
              />
            </Group>
            <PeriodFields
              label="期間"
              unitType={settings.unit_type}
              period={settings.period}
              onChange={(period) => setSettings({ period })}
              error={
                errors['aggregation_settings.period.to'] ??
                errors['aggregation_settings.period.from'] ??
                errors['aggregation_settings.period']
              }
            />
            <Switch
              label="比較期間を指定する"
              checked={settings.comparison_period !== null}
              onChange={(e) =>
                setSettings({ comparison_period: e.currentTarget.checked ? yearBefore(settings.period) : null })
              }
            />
            {settings.comparison_period && (
              <PeriodFields
                label="比較期間"
                unitType={settings.unit_type}
                period={settings.comparison_period}
                onChange={(comparison_period) => setSettings({ comparison_period })}
                error={
                  errors['aggregation_settings.comparison_period.to'] ??
                  errors['aggregation_settings.comparison_period.from'] ??
                  errors['aggregation_settings.comparison_period']
                }
              />
            )}
            {info.ownDepartments && (
              <MultiSelect
                label="自院診療科"
                description="選ばないときはすべての診療科を集計します"
                data={(ownDepartments.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
                value={settings.own_department_ids}
                onChange={(own_department_ids) => setSettings({ own_department_ids })}
                error={errors['aggregation_settings.own_department_ids']}
                searchable
                clearable
                maw={480}
              />
            )}
          </Section>
          <Section title="表示項目">
            <DisplayItemsEditor
              items={items}
              value={values.display_items}
              onChange={(display_items) => setValues((v) => ({ ...v, display_items }))}
              errors={errors}
            />
          </Section>
          <Section title="絞り込み条件">
            <FilterConditionsEditor
              items={items}
              conditions={values.filter_conditions}
              onChange={(filter_conditions) => setValues((v) => ({ ...v, filter_conditions }))}
              errors={errors}
              field="filter_conditions"
              max={50}
            />
          </Section>
          <Section title="並び順">
            <SortConditionsEditor
              items={items}
              displayItems={values.display_items}
              value={values.sort_conditions}
              onChange={(sort_conditions) => setValues((v) => ({ ...v, sort_conditions }))}
              errors={errors}
            />
          </Section>
          <Group justify="space-between">
            <Button
              variant="light"
              loading={previewing}
              onClick={() => void runPreview(1)}
              data-testid="report-preview"
            >
              プレビュー
            </Button>
            <Group gap="xs">
              <Button variant="default" onClick={onCancel}>
                キャンセル
              </Button>
              <Button type="submit" loading={saving} data-testid="report-save">
                保存
              </Button>
            </Group>
          </Group>
          {preview && (
            <Section title="プレビュー">
              {previewStale ? (
                <Alert color="yellow" data-testid="report-preview-stale">
                  <Group justify="space-between" gap="xs">
                    <Text size="sm">設定を変更しました。プレビューを更新すると、変更後の設定で表示します。</Text>
                    <Button size="xs" variant="light" loading={previewing} onClick={() => void runPreview(1)}>
                      プレビューを更新
                    </Button>
                  </Group>
                </Alert>
              ) : (
                <ReportResultTable result={preview.result} kind={kind} onPageChange={(page) => void runPreview(page)} />
              )}
            </Section>
          )}
        </Stack>
      </form>
      <UnsavedChangesGuard
        isDirty={() => !savingNow.current && JSON.stringify(requestOf(values)) !== initialJson}
        description="このページを離れると、保存していないレポートの設定（項目・条件・並び順など）は失われます。"
      />
    </>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Paper withBorder p="md">
      <Stack gap="sm">
        <Text fw={700}>{title}</Text>
        {children}
      </Stack>
    </Paper>
  );
}

const thisYear = new Date().getFullYear();
const fiscalYears = Array.from({ length: 12 }, (_, i) => String(thisYear + 1 - i));

/** From/to months, or from/to 年度 when the period is given in years. */
function PeriodFields({
  label,
  unitType,
  period,
  onChange,
  error,
}: {
  label: string;
  unitType: 'month' | 'year';
  period: Period;
  onChange: (period: Period) => void;
  error: string | undefined;
}) {
  if (unitType === 'year') {
    const from = fiscalYearOf(period.from);
    const to = fiscalYearOf(period.to);
    return (
      <Group gap="xs" align="flex-start">
        <Select
          label={`${label}（開始年度）`}
          data={fiscalYears.map((y) => ({ value: y, label: `${y}年度` }))}
          value={String(from)}
          onChange={(y) => y && onChange(periodOfFiscalYears(Number(y), to))}
          allowDeselect={false}
          w={160}
        />
        <Select
          label={`${label}（終了年度）`}
          data={fiscalYears.map((y) => ({ value: y, label: `${y}年度` }))}
          value={String(to)}
          onChange={(y) => y && onChange(periodOfFiscalYears(from, Number(y)))}
          error={error}
          allowDeselect={false}
          w={160}
        />
      </Group>
    );
  }
  const fromMonth = period.from.slice(0, 7);
  const toMonth = period.to.slice(0, 7);
  return (
    <Group gap="xs" align="flex-start">
      <TextInput
        type="month"
        label={`${label}（開始月）`}
        value={fromMonth}
        onChange={(e) => e.currentTarget.value && onChange(periodOfMonths(e.currentTarget.value, toMonth))}
        w={180}
      />
      <TextInput
        type="month"
        label={`${label}（終了月）`}
        value={toMonth}
        onChange={(e) => e.currentTarget.value && onChange(periodOfMonths(fromMonth, e.currentTarget.value))}
        error={error}
        w={180}
      />
    </Group>
  );
}
