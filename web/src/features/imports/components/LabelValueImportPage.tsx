import { Alert, Button, FileInput, Group, List, Pagination, Paper, Select, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { endpoints, type CsvEncoding } from '@renkei/contracts';
import { useEffect, useRef, useState } from 'react';
import { fieldErrorsOf, isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { reloadedConflictMessage } from '../../../errors/mutation-errors.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { downloadFile, uploadFile } from '../file-transfer.ts';
import { importQueries, isRunning } from '../imports.queries.ts';
import { ImportRecordList } from './ImportRecordList.tsx';

export function LabelValueImportPage() {
  const services = useServices();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [awaitedId, setAwaitedId] = useState<string | null>(null);
  const list = useQuery(importQueries.labelValueImports(services.api, page, awaitedId));
  const [file, setFile] = useState<File | null>(null);
  const [encoding, setEncoding] = useState<'auto' | CsvEncoding>('auto');
  const [error, setError] = useState<string | undefined>();
  const [uploading, setUploading] = useState(false);
  const onError = useMutationErrorHandler({ conflictMessage: reloadedConflictMessage });

  const anyRunning = list.data?.data.some(isRunning) ?? false;
  const awaitedShown = awaitedId !== null && (list.data?.data.some((r) => r.id === awaitedId) ?? false);
  useEffect(() => {
    if (awaitedShown) setAwaitedId(null);
  }, [awaitedShown]);
  useEffect(() => {
    if (awaitedId === null) return;
    // Never poll forever for a record the list does not show (another page, a lagging projection).
    const timer = setTimeout(() => setAwaitedId(null), 60_000);
    return () => clearTimeout(timer);
  }, [awaitedId]);
  const wasRunning = useRef(false);
  useEffect(() => {
    // A finished import changed label values: institution pages must not show the old ones.
    if (wasRunning.current && !anyRunning) void queryClient.invalidateQueries({ queryKey: ['medical-institutions'] });
    wasRunning.current = anyRunning;
  }, [anyRunning, queryClient]);

  const template = async (enc: CsvEncoding) => {
    try {
      await downloadFile(services, endpoints.labelValueImportTemplate, {
        query: { encoding: enc },
        fallbackName: 'medical_institution_label_values.csv',
      });
    } catch (e) {
      onError(e);
    }
  };

  const upload = async () => {
    if (!file) {
      setError('ファイルを選択してください');
      return;
    }
    setError(undefined);
    setUploading(true);
    try {
      const record = await uploadFile(services, endpoints.importLabelValues, file, {
        encoding: encoding === 'auto' ? undefined : encoding,
      });
      setAwaitedId(record.id);
      toast.success('アップロードしました。取り込みを開始します');
      setFile(null);
      setPage(1);
      await queryClient.invalidateQueries({ queryKey: importQueries.all });
    } catch (e) {
      if (isApiError(e) && e.status === 422) setError(Object.values(fieldErrorsOf(e))[0] ?? e.message);
      else onError(e);
    } finally {
      setUploading(false);
    }
  };

  return (
    <Stack gap="md">
      <Title order={2} fz="xl">
        医療機関ラベル値のインポート
      </Title>
      <Paper withBorder p="md">
        <Stack gap="sm">
          <Title order={3} fz="md">
            1. テンプレートをダウンロード
          </Title>
          <List size="sm">
            <List.Item>
              テンプレートには現在の医療機関ラベルが見出しとして入っています。見出しに合わせて値を記入してください。
            </List.Item>
            <List.Item>Excelで編集する場合は Shift_JIS 版を、その他のツールでは UTF-8 版をお使いください。</List.Item>
            <List.Item>誤りのある行は取り込まれず、行番号付きのエラーとして履歴に表示されます。</List.Item>
          </List>
          <Group gap="xs">
            <Button variant="default" size="xs" onClick={() => void template('utf-8')} data-testid="template-utf8">
              テンプレート（UTF-8）
            </Button>
            <Button variant="default" size="xs" onClick={() => void template('shift_jis')} data-testid="template-sjis">
              テンプレート（Shift_JIS / Excel向け）
            </Button>
          </Group>
        </Stack>
      </Paper>
      <Paper withBorder p="md">
        <Stack gap="sm">
          <Title order={3} fz="md">
            2. ファイルをアップロード
          </Title>
          <Group align="flex-end" gap="sm">
            <FileInput
              label="CSVファイル"
              placeholder="ファイルを選択"
              accept=".csv,.txt,.tsv,text/csv"
              value={file}
              onChange={setFile}
              clearable
              w={320}
              error={error}
              data-testid="import-file"
            />
            <Select
              label="文字コード"
              w={160}
              data={[
                { value: 'auto', label: '自動判定' },
                { value: 'utf-8', label: 'UTF-8' },
                { value: 'shift_jis', label: 'Shift_JIS' },
              ]}
              value={encoding}
              onChange={(v) => v && setEncoding(v as typeof encoding)}
              allowDeselect={false}
            />
            <Button onClick={() => void upload()} loading={uploading} disabled={anyRunning} data-testid="import-upload">
              インポート
            </Button>
          </Group>
          {anyRunning && (
            <Alert color="blue" variant="light">
              インポートを処理しています。完了するまで次のファイルはアップロードできません。
            </Alert>
          )}
        </Stack>
      </Paper>
      <Paper withBorder p="md">
        <Stack gap="sm">
          <Title order={3} fz="md">
            インポート履歴
          </Title>
          {list.isError && <Text c="red">インポート履歴を読み込めませんでした。</Text>}
          {list.data && <ImportRecordList records={list.data.data} />}
          {list.data && list.data.meta.total_pages > 1 && (
            <Pagination total={list.data.meta.total_pages} value={page} onChange={setPage} aria-label="ページ" />
          )}
        </Stack>
      </Paper>
    </Stack>
  );
}
