import { ActionIcon, Button, Card, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { DashboardInput, type FeatureKey, type ReportKind } from '@renkei/contracts';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { ReorderButtons } from '../../../ui/ReorderButtons.tsx';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { labelQueries } from '../../labels/labels.queries.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { reportKinds } from '../../reports/report-kinds.ts';
import { reportKindOfType, reportTypeOptions, type DashboardReportType } from '../dashboard-report.ts';
import { dashboardQueries, type DashboardInputValues } from '../dashboards.queries.ts';

export interface DashboardFormValues {
  name: string;
  filter_department: string | null;
  medical_institution_label_id: string | null;
  contents: { report_type: DashboardReportType; report_id: string | null }[];
}

export const emptyDashboard: DashboardFormValues = {
  name: '',
  filter_department: null,
  medical_institution_label_id: null,
  contents: [],
};

/** The body the API takes; a row whose report is not chosen yet is sent as is, for the server to name. */
const toInput = (v: DashboardFormValues): DashboardInputValues => ({
  ...v,
  contents: v.contents.map((c) => ({ report_type: c.report_type, report_id: c.report_id ?? '' })),
});

/** Checks with the contract's own schema, so the messages are the server's; an unchosen report by its row. */
function validate(v: DashboardFormValues): Record<string, string> {
  const errors: Record<string, string> = {};
  const parsed = DashboardInput.safeParse(toInput(v));
  if (!parsed.success)
    for (const issue of parsed.error.issues) {
      const field = issue.path.join('.');
      if (!field.startsWith('contents.')) errors[field] ??= issue.message;
    }
  v.contents.forEach((c, i) => {
    if (!c.report_id) errors[`contents.${i}.report_id`] = 'レポートを選択してください';
  });
  return errors;
}

function ReportSelect({
  kind,
  value,
  error,
  index,
  onChange,
}: {
  kind: ReportKind;
  value: string | null;
  error: string | undefined;
  index: number;
  onChange: (id: string | null) => void;
}) {
  const { api } = useServices();
  const choices = useQuery(dashboardQueries.reportChoices(api, kind));
  const data = (choices.data?.data ?? []).map((r) => ({ value: r.id, label: r.name }));
  // A report deleted since the dashboard was saved stays selected, under a name that says so.
  if (value && choices.data && !data.some((d) => d.value === value)) data.push({ value, label: '削除されたレポート' });
  return (
    <Select
      label="レポート"
      aria-label={`${index + 1}件目のレポート`}
      placeholder={choices.isLoading ? '読み込み中…' : 'レポートを選択'}
      data={data}
      value={value}
      onChange={onChange}
      error={error}
      searchable
      nothingFoundMessage="レポートがありません"
      style={{ flex: 1 }}
    />
  );
}

/** The dashboard editor of `/dashboards/new` and `/dashboards/{id}/edit`. */
export function DashboardForm({
  title,
  initial,
  features,
  onSave,
  onCancel,
}: {
  title: string;
  initial: DashboardFormValues;
  features: readonly FeatureKey[];
  onSave: (values: DashboardInputValues) => Promise<unknown>;
  onCancel: () => void;
}) {
  const { api } = useServices();
  const [values, setValues] = useState(initial);
  const departments = useQuery(referenceDataQueries.ownDepartments(api));
  const labels = useQuery({ ...labelQueries.institutionLabels(api), enabled: features.includes('labels') });
  const { errors, saving, submit } = useFormSubmit({ values, validate, save: (v) => onSave(toInput(v)) });
  const types = reportTypeOptions.filter((o) => features.includes(reportKinds[reportKindOfType[o.value]].feature));
  const setContent = (i: number, next: Partial<DashboardFormValues['contents'][number]>) =>
    setValues((v) => ({ ...v, contents: v.contents.map((c, j) => (j === i ? { ...c, ...next } : c)) }));

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack gap="md" maw={960}>
        <Title order={2}>{title}</Title>
        <TextInput
          label="ダッシュボード名"
          required
          value={values.name}
          error={errors.name}
          onChange={(e) => {
            const name = e.currentTarget.value;
            setValues((v) => ({ ...v, name }));
          }}
        />
        <Group grow align="flex-start">
          <Select
            label="診療科で絞り込み"
            description="選ぶと、各レポートの紹介実績をこの診療科の分だけにします"
            placeholder="すべての診療科"
            clearable
            data={(departments.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
            value={values.filter_department}
            error={errors.filter_department}
            onChange={(filter_department) => setValues((v) => ({ ...v, filter_department }))}
          />
          <Select
            label="医療機関ラベル"
            description="選ぶと、医療機関レポートにこのラベルの値を列として加えます"
            placeholder="表示しない"
            clearable
            data={(labels.data ?? []).map((l) => ({ value: l.id, label: l.name }))}
            value={values.medical_institution_label_id}
            error={errors.medical_institution_label_id}
            onChange={(medical_institution_label_id) => setValues((v) => ({ ...v, medical_institution_label_id }))}
          />
        </Group>
        <Stack gap="xs">
          <Text fw={600}>表示するレポート</Text>
          {errors.contents && (
            <Text c="red" size="sm">
              {errors.contents}
            </Text>
          )}
          {values.contents.length === 0 && (
            <Text size="sm" c="dimmed">
              レポートはまだありません。「レポートを追加」で並べます。
            </Text>
          )}
          {values.contents.map((c, i) => (
            <Card key={i} withBorder padding="sm" data-testid="dashboard-content-row">
              <Group align="flex-end" wrap="nowrap">
                <Select
                  label="レポートの種類"
                  aria-label={`${i + 1}件目のレポートの種類`}
                  data={types}
                  value={c.report_type}
                  allowDeselect={false}
                  onChange={(type) =>
                    type && setContent(i, { report_type: type as DashboardReportType, report_id: null })
                  }
                  w={200}
                />
                <ReportSelect
                  kind={reportKindOfType[c.report_type]}
                  value={c.report_id}
                  index={i}
                  error={errors[`contents.${i}.report_id`]}
                  onChange={(report_id) => setContent(i, { report_id })}
                />
                <ReorderButtons
                  name={`${i + 1}件目のレポート`}
                  index={i}
                  count={values.contents.length}
                  disabled={saving}
                  onMove={(from, to) =>
                    setValues((v) => {
                      const contents = [...v.contents];
                      const [moved] = contents.splice(from, 1);
                      contents.splice(to, 0, moved!);
                      return { ...v, contents };
                    })
                  }
                />
                <ActionIcon
                  variant="subtle"
                  color="red"
                  aria-label={`${i + 1}件目のレポートを外す`}
                  onClick={() => setValues((v) => ({ ...v, contents: v.contents.filter((_, j) => j !== i) }))}
                  mb={4}
                >
                  ✕
                </ActionIcon>
              </Group>
            </Card>
          ))}
          <Group>
            <Button
              variant="light"
              disabled={types.length === 0 || values.contents.length >= 20}
              onClick={() =>
                setValues((v) => ({
                  ...v,
                  contents: [...v.contents, { report_type: types[0]!.value, report_id: null }],
                }))
              }
            >
              レポートを追加
            </Button>
          </Group>
        </Stack>
        <Group justify="flex-end">
          <Button variant="default" onClick={onCancel} disabled={saving}>
            キャンセル
          </Button>
          <Button type="submit" loading={saving}>
            保存
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
