import { ActionIcon, Alert, Anchor, Button, FileButton, Group, Paper, Stack, Text } from '@mantine/core';
import { endpoints, maxEmailAttachmentBytes, type UploadedFile } from '@renkei/contracts';
import { useState } from 'react';
import { ApiError, isNetworkError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { fileHref } from '../../communications/attachment-files.ts';
import { uploadFile } from '../../imports/file-transfer.ts';
import { formatFileSize } from '../file-size.ts';

/** The campaign's attachment as the editor shows it (size and link: unknown until the server says). */
export interface EmailAttachmentValue {
  id: string;
  filename: string;
  size: number | null;
  url: string | null;
}

const limitMb = maxEmailAttachmentBytes / 1024 / 1024;

/**
 * 添付ファイル: one file sent with every mail of the campaign. It is uploaded as soon as it is chosen
 * (POST /uploaded_files, as a communication's files), and the draft names it when saved; a file over
 * the campaign limit is refused here before it is sent (the server checks the same).
 */
export function EmailAttachmentInput({
  value,
  onChange,
  error,
  disabled,
  upload,
}: {
  value: EmailAttachmentValue | null;
  onChange: (value: EmailAttachmentValue | null) => void;
  /** The server's message on `attachment_id`. */
  error?: string | undefined;
  disabled?: boolean;
  /** Uploads one file (tests); default POST /uploaded_files. */
  upload?: (file: File) => Promise<UploadedFile>;
}) {
  const services = useServices();
  const send = upload ?? ((file: File) => uploadFile(services, endpoints.uploadFile, file));
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  async function choose(file: File | null) {
    if (!file) return;
    setProblem(null);
    if (file.size > maxEmailAttachmentBytes) {
      setProblem(
        `「${file.name}」は大きすぎます（${formatFileSize(file.size)}、上限 ${limitMb} MB）。小さくするか、ファイルへのリンクを本文に入れてください`,
      );
      return;
    }
    if (file.size === 0) {
      setProblem(`「${file.name}」は空のファイルです`);
      return;
    }
    setBusy(true);
    try {
      const stored = await send(file);
      onChange({ id: stored.id, filename: stored.filename, size: file.size, url: stored.url });
    } catch (e) {
      if (isNetworkError(e)) setProblem('通信できませんでした。接続を確認して、もう一度選んでください');
      else if (e instanceof ApiError && e.status === 413) setProblem(`「${file.name}」は大きすぎます`);
      else if (e instanceof ApiError)
        setProblem(e.errors?.[0]?.message ?? `「${file.name}」を添付できませんでした: ${e.message}`);
      else setProblem(`「${file.name}」を添付できませんでした`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <Stack gap={4}>
      <Text fw={500} size="sm">
        添付ファイル
      </Text>
      <Text size="xs" c="dimmed">
        1ファイル・{limitMb} MBまで。すべての送信先に添付して送られます（大きな資料は本文にリンクを入れてください）。
      </Text>
      {value ? (
        <Paper withBorder p="xs" data-testid="email-attachment">
          <Group justify="space-between" wrap="nowrap">
            <Text size="sm" truncate>
              📎{' '}
              {value.url ? (
                <Anchor href={fileHref(services.config.apiBaseUrl, value.url)} target="_blank" rel="noopener">
                  {value.filename}
                </Anchor>
              ) : (
                value.filename
              )}
              {value.size !== null && (
                <Text span size="xs" c="dimmed" ml={6}>
                  （{formatFileSize(value.size)}）
                </Text>
              )}
            </Text>
            <ActionIcon
              variant="subtle"
              color="red"
              aria-label={`${value.filename}を外す`}
              disabled={disabled}
              onClick={() => {
                setProblem(null);
                onChange(null);
              }}
            >
              ×
            </ActionIcon>
          </Group>
        </Paper>
      ) : (
        <Group>
          <FileButton onChange={(file) => void choose(file)} disabled={disabled}>
            {(props) => (
              <Button {...props} variant="light" size="xs" loading={busy}>
                ファイルを添付
              </Button>
            )}
          </FileButton>
        </Group>
      )}
      {(problem ?? error) && (
        <Alert color="red" p="xs" role="alert">
          {problem ?? error}
        </Alert>
      )}
    </Stack>
  );
}
