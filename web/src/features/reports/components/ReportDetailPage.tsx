import { Button, Group, Loader, Stack, Tabs, Text, Title } from '@mantine/core';
import type { ReportKind } from '@renkei/contracts';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { Suspense } from 'react';
import { fieldErrorsOf } from '../../../api/api-errors.ts';
import { formatDateTime } from '../../../app/dates.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { valuesOf } from '../report-editor.ts';
import { downloadReport } from '../report-format.ts';
import { reportKinds } from '../report-kinds.ts';
import { periodLabel } from '../report-labels.ts';
import { listSearch, reportQueries, useUpdateReport } from '../reports.queries.ts';
import { reportFailure } from './report-failure.ts';
import { ReportAggregationPanel } from './ReportAggregationPanel.tsx';
import { ReportAlertSettingsPanel } from './ReportAlertSettingsPanel.tsx';
import { ReportEditor } from './ReportEditor.tsx';
import { CsvExportButton } from '../../../ui/CsvExportButton.tsx';
import { ReportPrintStyle } from './ReportPrintStyle.tsx';
import { ReportResultTable } from './ReportResultTable.tsx';

type ReportTab = 'result' | 'aggregation' | 'alert';
export interface ReportDetailParams {
  page: number;
  mode: 'view' | 'edit';
  tab: ReportTab;
}

const conflictMessage = 'ほかの人がこのレポートを更新しました。画面を再読み込みしてから編集してください';

/** `/<kind>/{id}`: the saved report run (paged, exported, printed), its 集計 and alert, or its editor. */
export function ReportDetailPage({
  kind,
  id,
  params,
  onParamsChange,
}: {
  kind: ReportKind;
  id: string;
  params: ReportDetailParams;
  onParamsChange: (next: Partial<ReportDetailParams>) => void;
}) {
  const info = reportKinds[kind];
  const { api } = useServices();
  const { data: definition } = useSuspenseQuery(reportQueries.detail(api, kind, id));
  const update = useUpdateReport(kind);
  const onError = useMutationErrorHandler({ conflictMessage });

  if (params.mode === 'edit')
    return (
      <ReportEditor
        key={definition.version}
        kind={kind}
        definition={definition}
        initial={valuesOf(definition)}
        onCancel={() => onParamsChange({ mode: 'view' })}
        onSave={async (values) => {
          try {
            await update.mutateAsync({ id, version: definition.version, body: values });
            toast.success('レポートを更新しました');
            onParamsChange({ mode: 'view', page: 1 });
          } catch (error) {
            reportFailure(error, onError);
          }
        }}
      />
    );

  const tab =
    (params.tab === 'aggregation' && !info.aggregates) || (params.tab === 'alert' && !info.alerts)
      ? 'result'
      : params.tab;
  return (
    <Stack gap="md" data-report-print>
      <ReportPrintStyle />
      <Group justify="space-between" align="flex-start" data-print-hide>
        <ButtonLink to={info.route} search={listSearch} variant="default">
          一覧へ戻る
        </ButtonLink>
        <Group gap="xs">
          <Button variant="default" onClick={() => onParamsChange({ mode: 'edit' })} data-testid="report-edit">
            編集
          </Button>
          <CsvExportButton
            testId="report-export"
            download={(encoding) => downloadReport(api, kind, definition, encoding)}
            downloadExcel={() => downloadReport(api, kind, definition, 'xlsx')}
          />
          <Button variant="default" onClick={() => window.print()}>
            印刷
          </Button>
        </Group>
      </Group>
      <Stack gap={4}>
        <Title order={2} size="h3" data-testid="report-name">
          {definition.name}
        </Title>
        <Text size="sm" c="dimmed">
          {info.title}・{periodLabel(definition.aggregation_settings)}・更新 {formatDateTime(definition.updated_at)}
        </Text>
      </Stack>
      <Tabs value={tab} onChange={(t) => t && onParamsChange({ tab: t as ReportTab })} keepMounted={false}>
        {(info.aggregates || info.alerts) && (
          <Tabs.List data-print-hide>
            <Tabs.Tab value="result">結果</Tabs.Tab>
            {info.aggregates && <Tabs.Tab value="aggregation">集計</Tabs.Tab>}
            {info.alerts && <Tabs.Tab value="alert">アラート設定</Tabs.Tab>}
          </Tabs.List>
        )}
        <Tabs.Panel value="result" pt="sm">
          <ReportResultPanel
            kind={kind}
            id={id}
            version={definition.version}
            page={params.page}
            onPageChange={(page) => onParamsChange({ page })}
          />
        </Tabs.Panel>
        {info.aggregates && (
          <Tabs.Panel value="aggregation" pt="sm">
            <Suspense fallback={<Loader size="sm" />}>
              <ReportAggregationPanel kind={kind} definition={definition} />
            </Suspense>
          </Tabs.Panel>
        )}
        {info.alerts && (
          <Tabs.Panel value="alert" pt="sm">
            <Suspense fallback={<Loader size="sm" />}>
              <ReportAlertSettingsPanel id={id} version={definition.version} />
            </Suspense>
          </Tabs.Panel>
        )}
      </Tabs>
    </Stack>
  );
}

function ReportResultPanel({
  kind,
  id,
  version,
  page,
  onPageChange,
}: {
  kind: ReportKind;
  id: string;
  version: number;
  page: number;
  onPageChange: (page: number) => void;
}) {
  const { api } = useServices();
  const result = useQuery(reportQueries.result(api, kind, id, version, page));
  if (result.isPending)
    return (
      <Group gap="xs">
        <Loader size="sm" />
        <Text size="sm" c="dimmed">
          集計しています…
        </Text>
      </Group>
    );
  if (result.isError) {
    // A saved definition the data no longer fits (a too-wide period …) answers 422: say why, not "error".
    const messages = Object.values(fieldErrorsOf(result.error));
    return (
      <Text c="red" size="sm" data-testid="report-result-error">
        {messages[0] ?? 'レポートを表示できませんでした。時間をおいて再度お試しください。'}
      </Text>
    );
  }
  return <ReportResultTable result={result.data} kind={kind} onPageChange={onPageChange} />;
}
