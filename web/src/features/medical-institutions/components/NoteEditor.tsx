import { Alert, Button, Group, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import type { MedicalInstitutionNote } from '@renkei/contracts';
import { useState } from 'react';
import { fieldErrorsOf, isApiError } from '../../../api/api-errors.ts';
import { formatDateTime } from '../../../app/dates.ts';
import { toast } from '../../../app/toast.ts';

export interface NoteEditorProps {
  title: string;
  note: MedicalInstitutionNote;
  maxLength: number;
  testId: string;
  onSave: (content: string, version: number) => Promise<unknown>;
  /** Called for failures other than 422 and 409 (they are shown here). */
  onError: (error: unknown) => void;
  /** Reloads the note after someone else changed it past `staleVersion`. */
  onConflict: (staleVersion: number) => Promise<unknown>;
}

export function NoteEditor({ title, note, maxLength, testId, onSave, onError, onConflict }: NoteEditorProps) {
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string | undefined>();
  const [conflict, setConflict] = useState(false);
  const [saving, setSaving] = useState(false);

  const save = async () => {
    if (draft === null) return;
    setSaving(true);
    setError(undefined);
    try {
      await onSave(draft, note.version);
      setDraft(null);
      setConflict(false);
      toast.success(`${title}を保存しました`);
    } catch (e) {
      if (isApiError(e) && e.status === 409) {
        // The draft stays in the editor so nothing typed is lost; the next save is against the new version.
        setConflict(true);
        await onConflict(note.version);
      } else if (isApiError(e) && e.status === 422) {
        setError(fieldErrorsOf(e).content ?? e.message);
      } else {
        onError(e);
      }
    } finally {
      setSaving(false);
    }
  };

  return (
    <Paper withBorder p="md" data-testid={testId}>
      <Stack gap="xs">
        <Group justify="space-between">
          <Title order={3} fz="md">
            {title}
          </Title>
          {draft === null && (
            <Button size="xs" variant="light" onClick={() => setDraft(note.content)} aria-label={`${title}を編集`}>
              編集
            </Button>
          )}
        </Group>
        {conflict && (
          <Alert color="orange" title="他の人が更新しました" data-testid={`${testId}-conflict`}>
            最新の内容を読み込みました。現在の内容: 「{note.content || '（空）'}
            」。入力中の内容で上書きする場合はもう一度保存してください。
          </Alert>
        )}
        {draft === null ? (
          <Text
            size="sm"
            style={{ whiteSpace: 'pre-wrap' }}
            c={note.content ? undefined : 'dimmed'}
            data-testid={`${testId}-content`}
          >
            {note.content || `${title}はまだありません。`}
          </Text>
        ) : (
          <>
            <Textarea
              aria-label={title}
              autosize
              minRows={4}
              maxRows={16}
              value={draft}
              onChange={(e) => setDraft(e.currentTarget.value)}
              error={error}
              description={`${draft.length} / ${maxLength}文字`}
              data-testid={`${testId}-input`}
            />
            <Group justify="flex-end" gap="xs">
              <Button
                size="xs"
                variant="default"
                onClick={() => {
                  setDraft(null);
                  setConflict(false);
                  setError(undefined);
                }}
              >
                キャンセル
              </Button>
              <Button size="xs" loading={saving} onClick={() => void save()} data-testid={`${testId}-save`}>
                保存
              </Button>
            </Group>
          </>
        )}
        {note.updated_at && (
          <Text size="xs" c="dimmed">
            最終更新: {note.updated_by?.name ?? '不明なユーザー'}（{formatDateTime(note.updated_at)}）
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
