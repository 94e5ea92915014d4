import { Button, Group, Stack, Text, Textarea } from '@mantine/core';
import type { CommunicationComment as Comment } from '@renkei/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { fieldErrorsOf, isApiError } from '../../../api/api-errors.ts';
import { formatDateTime } from '../../../app/dates.ts';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useViewport } from '../../../frame/use-viewport.ts';
import { ConfirmDeleteModal } from '../../../ui/ConfirmDeleteModal.tsx';
import { EditDeleteButtons } from '../../../ui/EditDeleteButtons.tsx';
import { communicationQueries, useDeleteComment, useEditComment } from '../communications.queries.ts';

/** Only the author edits a comment, so the other save came from another of their screens. */
export const commentConflictMessage = '他の画面で先にこのコメントが更新されました。最新の内容を表示しました。';
export const commentGoneMessage = 'このコメントは削除されています。最新の内容を表示しました。';

/**
 * One comment of a record. Its author edits it in place or deletes it after a confirmation, each time
 * against the version they read (If-Match): a stale edit is refused and the list shows the saved one.
 */
export function CommunicationComment({
  communicationId,
  comment: m,
  currentUserId,
}: {
  communicationId: string;
  comment: Comment;
  currentUserId: string;
}) {
  const queryClient = useQueryClient();
  const edit = useEditComment();
  const remove = useDeleteComment();
  const onError = useMutationErrorHandler({ conflictMessage: commentConflictMessage });
  // The version the author read when they began: a refresh of the list meanwhile does not make an edit
  // based on the older text win over a newer save.
  const [draft, setDraft] = useState<{ text: string; version: number } | null>(null);
  const [error, setError] = useState<string | undefined>();
  const [confirming, setConfirming] = useState<number | null>(null);
  const own = m.user?.id === currentUserId;
  // A phone's thumb needs 44 px targets; the desktop keeps the compact row.
  const phone = useViewport() === 'phone';
  const phoneButton = { size: 'md', mih: 44 } as const;

  // A 409 (saved elsewhere since) or a 404 (deleted elsewhere): say so and show the list as stored.
  const failed = (e: unknown) => {
    if (isApiError(e) && (e.status === 409 || e.status === 404)) {
      if (e.status === 409) onError(e);
      else toast.error(commentGoneMessage);
      setDraft(null);
      setConfirming(null);
      void queryClient.invalidateQueries({ queryKey: communicationQueries.all });
      return;
    }
    onError(e);
  };

  const save = async () => {
    if (draft === null) return;
    setError(undefined);
    try {
      await edit.mutateAsync({ id: communicationId, commentId: m.id, version: draft.version, comment: draft.text });
      setDraft(null);
    } catch (e) {
      const byField = fieldErrorsOf(e);
      if (byField.comment) setError(byField.comment);
      else failed(e);
    }
  };

  const confirmDelete = async (version: number) => {
    try {
      await remove.mutateAsync({ id: communicationId, commentId: m.id, version });
      setConfirming(null);
    } catch (e) {
      setConfirming(null);
      failed(e);
    }
  };

  if (draft !== null)
    return (
      <Stack gap={4} data-testid="communication-comment">
        <Textarea
          size="sm"
          aria-label="コメントを編集"
          autosize
          minRows={2}
          maxLength={2000}
          value={draft.text}
          error={error}
          onChange={(e) => setDraft({ ...draft, text: e.currentTarget.value })}
        />
        <Group justify="flex-end" gap="xs">
          <Button
            {...(phone ? phoneButton : { size: 'compact-sm' })}
            variant="default"
            onClick={() => setDraft(null)}
            disabled={edit.isPending}
          >
            キャンセル
          </Button>
          <Button
            {...(phone ? phoneButton : { size: 'compact-sm' })}
            onClick={() => void save()}
            loading={edit.isPending}
            disabled={draft.text.trim() === ''}
          >
            保存
          </Button>
        </Group>
      </Stack>
    );

  const startEdit = () => {
    setError(undefined);
    setDraft({ text: m.comment, version: m.version });
  };
  return (
    // On a phone the 編集/削除 pair goes under the text, full size, instead of squeezing the comment.
    <Group gap="xs" wrap={phone ? 'wrap' : 'nowrap'} align="flex-start" data-testid="communication-comment">
      <Text size="sm" style={{ flex: 1, minWidth: phone ? '100%' : undefined, whiteSpace: 'pre-wrap' }}>
        <Text span fw={600} size="sm">
          {m.user?.name ?? ''}
        </Text>{' '}
        {m.comment}{' '}
        <Text span size="xs" c="dimmed">
          {formatDateTime(m.created_date)}
        </Text>
      </Text>
      {own &&
        (phone ? (
          <Group gap="xs" justify="flex-end" w="100%">
            <Button {...phoneButton} variant="subtle" onClick={startEdit} aria-label="コメントを編集">
              編集
            </Button>
            <Button
              {...phoneButton}
              variant="subtle"
              color="red"
              onClick={() => setConfirming(m.version)}
              aria-label="コメントを削除"
            >
              削除
            </Button>
          </Group>
        ) : (
          <EditDeleteButtons compact subject="コメント" onEdit={startEdit} onDelete={() => setConfirming(m.version)} />
        ))}
      <ConfirmDeleteModal
        opened={confirming !== null}
        title="コメントの削除"
        message="このコメントを削除しますか？"
        pending={remove.isPending}
        onClose={() => setConfirming(null)}
        onConfirm={() => confirming !== null && void confirmDelete(confirming)}
        testId="confirm-delete-comment"
      />
    </Group>
  );
}
