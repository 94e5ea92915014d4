import { Button, Group, MultiSelect, Stack, Switch, Text } from '@mantine/core';
import type { ReportAlertSettings } from '@renkei/contracts';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { reportQueries, useUpdateAlertSettings } from '../reports.queries.ts';
import { reportFailure } from './report-failure.ts';
import { FilterConditionsEditor } from './FilterConditionsEditor.tsx';

/** An institution report's alert: the conditions a row must meet after an import, and who is told. */
export function ReportAlertSettingsPanel({ id, version }: { id: string; version: number }) {
  const { api } = useServices();
  const { data: items } = useSuspenseQuery(reportQueries.items(api, 'medical_institution_reports'));
  const { data: saved } = useSuspenseQuery(reportQueries.alertSettings(api, id));
  const staffs = useQuery(reportQueries.staffs(api));
  const update = useUpdateAlertSettings();
  const onError = useMutationErrorHandler({
    conflictMessage: 'ほかの人がこのレポートを更新しました。画面を再読み込みしてから設定してください',
  });
  const [values, setValues] = useState<ReportAlertSettings>(saved);
  const { errors, saving, submit } = useFormSubmit({
    values,
    validate: (v): Record<string, string> =>
      v.enabled && v.conditions.length === 0 ? { conditions: 'アラートの条件を1つ以上指定してください' } : {},
    save: async (v) => {
      try {
        await update.mutateAsync({ id, version, body: v });
        toast.success('アラート設定を保存しました');
      } catch (error) {
        reportFailure(error, onError);
      }
    },
  });
  return (
    <form onSubmit={(e) => void submit(e)} noValidate data-testid="alert-settings">
      <Stack gap="sm">
        <Text size="sm" c="dimmed">
          紹介データ・DPCデータの取り込み後と月替わりに、レポートの絞り込み条件とこの条件をすべて満たす医療機関があると、
          レポートにアラート日が付きます。
        </Text>
        <Switch
          label="アラートを有効にする"
          checked={values.enabled}
          onChange={(e) => {
            const enabled = e.currentTarget.checked;
            setValues((v) => ({ ...v, enabled }));
          }}
        />
        <FilterConditionsEditor
          items={items}
          conditions={values.conditions}
          onChange={(conditions) => setValues((v) => ({ ...v, conditions }))}
          errors={errors}
          field="conditions"
          emptyText="条件はありません（レポートに行が1件でもあればアラート日が付きます）"
          max={10}
        />
        <MultiSelect
          label="通知先"
          data={(staffs.data ?? []).map((s) => ({ value: s.id, label: s.name }))}
          value={values.notify_user_ids}
          onChange={(notify_user_ids) => setValues((v) => ({ ...v, notify_user_ids }))}
          error={errors.notify_user_ids ?? Object.entries(errors).find(([k]) => k.startsWith('notify_user_ids.'))?.[1]}
          searchable
          clearable
          maw={480}
        />
        <Group>
          <Button type="submit" loading={saving}>
            アラート設定を保存
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
