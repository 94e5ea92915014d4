import { Alert, Button, FileInput, Group, Paper, SegmentedControl, Select, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient, type QueryKey, type UseQueryOptions } from '@tanstack/react-query';
import type { CsvEncoding, EndpointContract, ImportRecord } from '@renkei/contracts';
import { useEffect, useState, type ReactNode } from 'react';
import type { ApiClient } from '../../../api/api-client.ts';
import { fieldErrorsOf, isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { reloadedConflictMessage } from '../../../errors/mutation-errors.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { downloadFile, uploadFile } from '../file-transfer.ts';
import { isRunning } from '../imports.queries.ts';
import { useImportEnded } from '../useImportEnded.ts';
import { ImportRecordList } from './ImportRecordList.tsx';
import { ListPagination } from '../../../ui/ListPagination.tsx';
import { UploadProgressBar, type UploadProgressValue } from '../../../ui/UploadProgressBar.tsx';

/** One kind of upload the page offers (the communication import has two: new records and updates). */
export interface ImportMode {
  value: string;
  /** Its name in the mode switch (shown only when there are several modes). */
  label: string;
  /** The multipart endpoint the file goes to; it answers the import record. */
  endpoint: EndpointContract;
  uploadLabel: string;
  /** What to put in the file, under step 1. */
  instructions: ReactNode;
  /** A template download, when the mode has one. */
  template?: { endpoint: EndpointContract; fallbackName: string };
}

/** A page of import records, as every import's list call answers it. */
type ImportList = Awaited<ReturnType<ApiClient['listLabelValueImports']>>;

/**
 * An import screen: how to prepare the file (a template per encoding), the upload with its encoding,
 * and the history, polled while an import runs or until the one just uploaded shows. One page for
 * every CSV import; each passes its modes, its list query and what a finished import makes stale.
 */
export function ImportPage<K extends QueryKey>({
  title,
  headerAction,
  prepareTitle,
  modes,
  listQuery,
  listKey,
  staleAfterImport,
  onImportEnded,
  recordActions,
  children,
}: {
  title: string;
  headerAction?: ReactNode;
  prepareTitle: string;
  modes: readonly [ImportMode, ...ImportMode[]];
  listQuery: (page: number, awaitedId: string | null) => UseQueryOptions<ImportList, Error, ImportList, K>;
  /** The history's key (refreshed after an upload). */
  listKey: QueryKey;
  /** What a finished import changes: those screens must not show the old data. */
  staleAfterImport: QueryKey;
  /** Anything else a finished import makes stale, beyond one key. */
  onImportEnded?: () => void;
  recordActions?: (record: ImportRecord) => ReactNode;
  /** Dialogs the record actions open. */
  children?: ReactNode;
}) {
  const services = useServices();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [awaitedId, setAwaitedId] = useState<string | null>(null);
  const list = useQuery(listQuery(page, awaitedId));
  const [modeValue, setModeValue] = useState(modes[0].value);
  const mode = modes.find((m) => m.value === modeValue) ?? modes[0];
  const [file, setFile] = useState<File | null>(null);
  const [encoding, setEncoding] = useState<'auto' | CsvEncoding>('auto');
  const [error, setError] = useState<string | undefined>();
  const [uploading, setUploading] = useState(false);
  const [progress, setProgress] = useState<UploadProgressValue | null>(null);
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
  useImportEnded(list.data?.data, () => {
    void queryClient.invalidateQueries({ queryKey: staleAfterImport });
    onImportEnded?.();
  });

  const template = async (enc: CsvEncoding) => {
    if (!mode.template) return;
    try {
      await downloadFile(services, mode.template.endpoint, {
        query: { encoding: enc },
        fallbackName: mode.template.fallbackName,
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
    setProgress({ loaded: 0, total: file.size });
    try {
      const record = (await uploadFile(
        services,
        mode.endpoint,
        file,
        { encoding: encoding === 'auto' ? undefined : encoding },
        { onProgress: setProgress },
      )) as ImportRecord;
      setAwaitedId(record.id);
      toast.success('アップロードしました。取り込みを開始します');
      setFile(null);
      setPage(1);
      await queryClient.invalidateQueries({ queryKey: listKey });
    } catch (e) {
      if (isApiError(e) && e.status === 422) setError(Object.values(fieldErrorsOf(e))[0] ?? e.message);
      else onError(e);
    } finally {
      setUploading(false);
      setProgress(null);
    }
  };

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2} fz="xl">
          {title}
        </Title>
        {headerAction}
      </Group>
      <Paper withBorder p="md">
        <Stack gap="sm">
          <Title order={3} fz="md">
            {prepareTitle}
          </Title>
          {modes.length > 1 && (
            <SegmentedControl
              value={mode.value}
              onChange={setModeValue}
              data={modes.map((m) => ({ value: m.value, label: m.label }))}
              w={260}
              data-testid="import-mode"
            />
          )}
          {mode.instructions}
          {mode.template && (
            <Group gap="xs">
              <Button variant="default" size="xs" onClick={() => void template('utf-8')} data-testid="template-utf8">
                テンプレート（UTF-8）
              </Button>
              <Button
                variant="default"
                size="xs"
                onClick={() => void template('shift_jis')}
                data-testid="template-sjis"
              >
                テンプレート（Shift_JIS / Excel向け）
              </Button>
            </Group>
          )}
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
              {mode.uploadLabel}
            </Button>
          </Group>
          {uploading && progress && <UploadProgressBar progress={progress} testId="import-upload-progress" />}
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
          {list.data && <ImportRecordList records={list.data.data} actions={recordActions} />}
          <ListPagination
            totalPages={list.data?.meta.total_pages}
            value={page}
            onChange={setPage}
            aria-label="ページ"
          />
        </Stack>
      </Paper>
      {children}
    </Stack>
  );
}
