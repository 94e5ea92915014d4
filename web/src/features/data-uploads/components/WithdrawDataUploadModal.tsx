import { Button, Group, List, Modal, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import type { DataUploadRecord } from '@renkei/contracts';
import { isApiError } from '../../../api/api-errors.ts';
import { formatDateTime } from '../../../app/dates.ts';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { uploadListKeys, useWithdrawDataUpload } from '../data-uploads.queries.ts';
import { uploadTypeLabel } from './labels.ts';
import { useReturnFocus } from '../../../ui/useReturnFocus.ts';

const alreadyWithdrawn = 'この取り込みは既に取り消されています。';

/** Asks before withdrawing an upload, saying what goes with it; closes once the server has answered either way. */
export function WithdrawDataUploadModal({ record, onClose }: { record: DataUploadRecord; onClose: () => void }) {
  useReturnFocus(true);
  const queryClient = useQueryClient();
  const withdraw = useWithdrawDataUpload();
  const onError = useMutationErrorHandler();
  const pending = withdraw.isPending;

  const confirm = async () => {
    try {
      await withdraw.mutateAsync(record.id);
      toast.success(
        `「${record.filename}」の取り消しを受け付けました。取り消しが終わるまで（大きなファイルでは数分）、集計にはこのファイルの行が含まれます。`,
      );
    } catch (e) {
      // Another owner withdrew it first (404), or the server found it still running or of a type it keeps
      // (409): the history is behind, and the 404 page would be wrong for a row that is merely gone.
      if (isApiError(e) && (e.status === 404 || e.status === 409)) {
        toast.error(e.status === 404 ? alreadyWithdrawn : e.message);
        await Promise.all(uploadListKeys.map((queryKey) => queryClient.invalidateQueries({ queryKey })));
      } else onError(e);
    } finally {
      onClose();
    }
  };

  const closeUnlessPending = () => {
    if (!pending) onClose();
  };

  return (
    <Modal
      opened
      onClose={closeUnlessPending}
      closeOnEscape={!pending}
      closeOnClickOutside={!pending}
      withCloseButton={!pending}
      title="取り込みの取り消し"
      centered
    >
      <Stack>
        <Text>
          「{record.filename}」（{uploadTypeLabel[record.import_type]}、{formatDateTime(record.created_at)}
          ）の取り込みを取り消しますか？
        </Text>
        {record.imported_row_count === 0 ? (
          // A run that failed or refused every row: nothing counts, only its line in the history goes.
          <List size="sm" spacing={4} data-testid="withdraw-upload-consequences">
            <List.Item>このファイルから取り込まれた行はないため、集計は変わりません。</List.Item>
            <List.Item>アップロード履歴からこの取り込み（エラーの内容も）が消えます。</List.Item>
          </List>
        ) : (
          <List size="sm" spacing={4} data-testid="withdraw-upload-consequences">
            <List.Item>
              このファイルで取り込んだ行（{record.imported_row_count.toLocaleString('ja-JP')}
              行）を、紹介・逆紹介・入院の集計から削除します。
            </List.Item>
            <List.Item>同じ行が他のアップロードにも含まれている場合、その行は残ります。</List.Item>
            <List.Item>取り消しが終わると、アップロード履歴からこの取り込みが消えます。</List.Item>
            <List.Item>元に戻せません。戻すには、同じファイルをもう一度アップロードしてください。</List.Item>
          </List>
        )}
        <Group justify="flex-end">
          {/* The safer choice has the focus: Enter right after opening keeps the upload. */}
          <Button variant="default" onClick={onClose} disabled={pending} data-autofocus>
            キャンセル
          </Button>
          <Button color="red" loading={pending} onClick={() => void confirm()} data-testid="confirm-withdraw-upload">
            取り消す
          </Button>
        </Group>
      </Stack>
    </Modal>
  );
}
