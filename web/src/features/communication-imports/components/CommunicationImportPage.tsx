import {
  Alert,
  Button,
  FileInput,
  Group,
  List,
  Pagination,
  Paper,
  SegmentedControl,
  Select,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { endpoints, type CsvEncoding, type ImportRecord } from '@renkei/contracts';
import { useEffect, useRef, useState } from 'react';
import { fieldErrorsOf, isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { reloadedConflictMessage } from '../../../errors/mutation-errors.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { downloadFile, uploadFile } from '../../imports/file-transfer.ts';
import { isRunning } from '../../imports/imports.queries.ts';
import { ImportRecordList } from '../../imports/components/ImportRecordList.tsx';
import { canUndo, communicationImportQueries, useUndoCommunicationImport } from '../communication-imports.queries.ts';

type Mode = 'create' | 'update';

const modeNames: Record<ImportRecord['import_type'], string> = {
  communication: '新規登録',
  communication_update: '一括更新',
  referral: '',
  ff1_file: '',
  d_file: '',
  outpatient_ef_file: '',
  hospital_admission_ef_file: '',
  reverse_referral: '',
  medical_institution_label_value: '',
};

export function CommunicationImportPage() {
  const services = useServices();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [awaitedId, setAwaitedId] = useState<string | null>(null);
  const list = useQuery(communicationImportQueries.list(services.api, page, awaitedId));
  const [mode, setMode] = useState<Mode>('create');
  const [file, setFile] = useState<File | null>(null);
  const [encoding, setEncoding] = useState<'auto' | CsvEncoding>('auto');
  const [error, setError] = useState<string | undefined>();
  const [uploading, setUploading] = useState(false);
  const [undoing, setUndoing] = useState<ImportRecord | null>(null);
  const undo = useUndoCommunicationImport();
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
    // A finished import created or changed records: the communication screens must not show the old ones.
    if (wasRunning.current && !anyRunning) void queryClient.invalidateQueries({ queryKey: ['communications'] });
    wasRunning.current = anyRunning;
  }, [anyRunning, queryClient]);

  const template = async (enc: CsvEncoding) => {
    try {
      await downloadFile(services, endpoints.communicationImportTemplate, {
        query: { encoding: enc },
        fallbackName: 'communications_template.csv',
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
      const record = await uploadFile(
        services,
        mode === 'create' ? endpoints.importCommunications : endpoints.importCommunicationUpdates,
        file,
        { encoding: encoding === 'auto' ? undefined : encoding },
      );
      setAwaitedId(record.id);
      toast.success('アップロードしました。取り込みを開始します');
      setFile(null);
      setPage(1);
      await queryClient.invalidateQueries({ queryKey: communicationImportQueries.all });
    } catch (e) {
      if (isApiError(e) && e.status === 422) setError(Object.values(fieldErrorsOf(e))[0] ?? e.message);
      else onError(e);
    } finally {
      setUploading(false);
    }
  };

  const confirmUndo = async () => {
    if (!undoing) return;
    try {
      await undo.mutateAsync(undoing.id);
      toast.success('インポートを取り消しました');
    } catch (e) {
      onError(e);
    } finally {
      setUndoing(null);
    }
  };

  return (
    <Stack gap="md">
      <Group justify="space-between">
        <Title order={2} fz="xl">
          活動記録のインポート
        </Title>
        <ButtonLink to="/communications" search={{ page: 1, sort: 'desc' }} variant="default" size="xs">
          活動記録を見る
        </ButtonLink>
      </Group>
      <Paper withBorder p="md">
        <Stack gap="sm">
          <Title order={3} fz="md">
            1. ファイルを用意
          </Title>
          <SegmentedControl
            value={mode}
            onChange={(v) => setMode(v as Mode)}
            data={[
              { value: 'create', label: '新規登録' },
              { value: 'update', label: '一括更新' },
            ]}
            w={260}
            data-testid="import-mode"
          />
          {mode === 'create' ? (
            <>
              <List size="sm">
                <List.Item>
                  テンプレートの見出しに合わせて1行に1件の活動記録を記入してください。活動ラベルは見出しにラベル名を書くと、その列の値が記録の種別のラベルに入ります。
                </List.Item>
                <List.Item>
                  医療機関は医療機関コード、または正式名称（完全一致）で指定します。担当者はメールアドレスか氏名で、空欄の場合はインポートした人になります。
                </List.Item>
                <List.Item>
                  誤りのある行は登録されず、行番号付きのエラーとして履歴に表示されます。登録した記録は履歴の「取り消し」でまとめて削除できます。
                </List.Item>
              </List>
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
            </>
          ) : (
            <List size="sm">
              <List.Item>
                活動記録の検索画面から「CSV出力」したファイルを編集してアップロードすると、「ID」列の記録が更新されます。
              </List.Item>
              <List.Item>
                ファイルにある列の値で置き換わります（ラベルは「ラベル: 値 / ラベル:
                値」の形式）。医療機関・タスク・いいね・コメントの列は変更されません。
              </List.Item>
            </List>
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
              {mode === 'create' ? 'インポート（新規登録）' : 'インポート（一括更新）'}
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
          {list.data && (
            <ImportRecordList
              records={list.data.data}
              actions={(record) => (
                <Group gap={4} wrap="nowrap">
                  <Text size="xs" c="dimmed">
                    {modeNames[record.import_type]}
                  </Text>
                  {canUndo(record) && (
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      color="red"
                      onClick={() => setUndoing(record)}
                      data-testid="undo-import"
                    >
                      取り消し
                    </Button>
                  )}
                </Group>
              )}
            />
          )}
          {list.data && list.data.meta.total_pages > 1 && (
            <Pagination total={list.data.meta.total_pages} value={page} onChange={setPage} aria-label="ページ" />
          )}
        </Stack>
      </Paper>
      <ConfirmDeleteModal
        opened={undoing !== null}
        title="インポートの取り消し"
        message={`「${undoing?.filename ?? ''}」のインポートを取り消しますか？`}
        detail={
          undoing?.import_type === 'communication'
            ? `このインポートで登録した活動記録（${undoing.imported_row_count}件）を削除し、履歴からも消します。元に戻せません。`
            : '履歴から消します。更新した活動記録の内容は元に戻りません。'
        }
        confirmLabel="取り消す"
        pending={undo.isPending}
        onClose={() => setUndoing(null)}
        onConfirm={() => void confirmUndo()}
        testId="confirm-undo-import"
      />
    </Stack>
  );
}
