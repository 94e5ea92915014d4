import { Button, Group, List, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { endpoints, type ImportRecord } from '@renkei/contracts';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { reloadedConflictMessage } from '../../../errors/mutation-errors.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { ImportPage } from '../../imports/components/ImportPage.tsx';
import { canUndo, communicationImportQueries, useUndoCommunicationImport } from '../communication-imports.queries.ts';
import { invalidateFigures } from '../../data-analysis/invalidate-figures.ts';
import { BackLinkButton } from '../../../frame/BackLinkButton.tsx';

const modeNames: Partial<Record<ImportRecord['import_type'], string>> = {
  communication: '新規登録',
  communication_update: '一括更新',
};

export function CommunicationImportPage() {
  const { api } = useServices();
  const queryClient = useQueryClient();
  const [undoing, setUndoing] = useState<ImportRecord | null>(null);
  const undo = useUndoCommunicationImport();
  const onError = useMutationErrorHandler({ conflictMessage: reloadedConflictMessage });

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
    <ImportPage
      title="活動記録のインポート"
      headerAction={
        <Group gap="xs">
          <ButtonLink to="/communications" search={{ page: 1, sort: 'desc' }} variant="default" size="xs">
            活動記録を見る
          </ButtonLink>
          <BackLinkButton label="ラベル管理へ戻る" size="xs" />
        </Group>
      }
      prepareTitle="1. ファイルを用意"
      modes={[
        {
          value: 'create',
          label: '新規登録',
          endpoint: endpoints.importCommunications,
          uploadLabel: 'インポート（新規登録）',
          template: { endpoint: endpoints.communicationImportTemplate, fallbackName: 'communications_template.csv' },
          instructions: (
            <List size="sm">
              <List.Item>
                テンプレートの見出しに合わせて1行に1件の活動記録を記入してください。活動ラベルは見出しにラベル名を書くと、その列の値が記録の種別のラベルに入ります。
              </List.Item>
              <List.Item>
                医療機関は医療機関コード、または正式名称（完全一致）で指定します。担当者はメールアドレスか氏名で、空欄の場合はインポートした人になります。
              </List.Item>
              <List.Item>
                活動日は「2026-04-01」の形式、医師面談は「あり」「なし」または空欄で記入してください。
              </List.Item>
              <List.Item>
                誤りのある行は登録されず、行番号付きのエラーとして履歴に表示されます。登録した記録は履歴の「取り消し」でまとめて削除できます。
              </List.Item>
            </List>
          ),
        },
        {
          value: 'update',
          label: '一括更新',
          endpoint: endpoints.importCommunicationUpdates,
          uploadLabel: 'インポート（一括更新）',
          instructions: (
            <List size="sm">
              <List.Item>
                活動記録の検索画面から「CSV出力」したファイルを編集してアップロードすると、「ID」列の記録が更新されます。
              </List.Item>
              <List.Item>
                ファイルにある列の値で置き換わります（ラベルは「ラベル: 値 / ラベル:
                値」の形式）。医療機関・医療機関コード・タスク・いいね・コメントの列は変更されません。
              </List.Item>
              <List.Item>履歴の「取り消し」で、更新した記録を取り込み前の内容に戻せます。</List.Item>
            </List>
          ),
        },
      ]}
      listQuery={(page, awaitedId) => communicationImportQueries.list(api, page, awaitedId)}
      listKey={communicationImportQueries.all}
      // A finished import created or changed records: the communication screens must not show the old ones.
      staleAfterImport={['communications']}
      // And the figures counted from visits.
      onImportEnded={() => void invalidateFigures(queryClient, 'communications')}
      recordActions={(record) => (
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
    >
      <ConfirmDeleteModal
        opened={undoing !== null}
        title="インポートの取り消し"
        message={`「${undoing?.filename ?? ''}」のインポートを取り消しますか？`}
        detail={
          undoing?.import_type === 'communication'
            ? `このインポートで登録した活動記録（${undoing.imported_row_count}件）を削除し、履歴からも消します。元に戻せません。`
            : 'このインポートで更新した活動記録を取り込み前の内容に戻し（取り込み後に手で変更した項目はそのまま）、履歴からも消します。'
        }
        confirmLabel="取り消す"
        pending={undo.isPending}
        onClose={() => setUndoing(null)}
        onConfirm={() => void confirmUndo()}
        testId="confirm-undo-import"
      />
    </ImportPage>
  );
}
