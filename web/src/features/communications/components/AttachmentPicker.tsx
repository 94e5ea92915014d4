import { ActionIcon, Alert, Button, Card, Group, Image, Stack, Text } from '@mantine/core';
import { endpoints, type UploadedFile } from '@renkei/contracts';
import { useRef, useState } from 'react';
import { ApiError, isNetworkError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { uploadFile } from '../../imports/file-transfer.ts';
import { fileHref, looksLikeImage, maxAttachmentBytes, maxAttachments } from '../attachment-files.ts';

export const offlineAttachmentMessage =
  'ファイルの添付には通信が必要です。接続が戻ってから、もう一度選んでください（入力中の内容はこの端末に保存されています）。';

const offline = () => typeof navigator !== 'undefined' && navigator.onLine === false;

/**
 * Photos and files of a record. Each file is uploaded as soon as it is chosen (the record then only
 * names it), so the draft kept on the device holds ids, never the files. Without a network nothing
 * is uploaded and the user is told so; what was typed stays.
 */
export function AttachmentPicker({
  value,
  onChange,
  error,
  upload,
}: {
  value: UploadedFile[];
  onChange: (files: UploadedFile[]) => void;
  error?: string | undefined;
  /** Uploads one file (tests); default POST /uploaded_files. */
  upload?: (file: File) => Promise<UploadedFile>;
}) {
  const services = useServices();
  const send = upload ?? ((file: File) => uploadFile(services, endpoints.uploadFile, file));
  const [busy, setBusy] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const cameraInput = useRef<HTMLInputElement>(null);
  const photoInput = useRef<HTMLInputElement>(null);
  const fileInput = useRef<HTMLInputElement>(null);
  // The latest list, so uploads finishing one after another each add to what is there by then.
  const current = useRef(value);
  current.current = value;

  async function choose(list: FileList | null) {
    const files = [...(list ?? [])];
    if (files.length === 0) return;
    setProblem(null);
    if (offline()) {
      setProblem(offlineAttachmentMessage);
      return;
    }
    const room = maxAttachments - current.current.length;
    if (files.length > room) setProblem(`添付ファイルは${maxAttachments}件まで登録できます`);
    for (const file of files.slice(0, Math.max(0, room))) {
      if (file.size > maxAttachmentBytes) {
        setProblem(`「${file.name}」は大きすぎます（上限 10 MB）`);
        continue;
      }
      setBusy((n) => n + 1);
      try {
        const uploaded = await send(file);
        onChange([...current.current, uploaded]);
        current.current = [...current.current, uploaded];
      } catch (e) {
        if (offline() || isNetworkError(e)) setProblem(offlineAttachmentMessage);
        else if (e instanceof ApiError)
          setProblem(e.errors?.[0]?.message ?? `「${file.name}」を添付できませんでした: ${e.message}`);
        else setProblem(`「${file.name}」を添付できませんでした`);
      } finally {
        setBusy((n) => n - 1);
      }
    }
  }

  const picker = (
    ref: React.RefObject<HTMLInputElement | null>,
    accept: string | undefined,
    label: string,
    camera = false,
  ) => (
    <input
      ref={ref}
      type="file"
      hidden
      // The camera takes one photo at a time; the library and files may give several.
      multiple={!camera}
      capture={camera ? 'environment' : undefined}
      accept={accept}
      aria-label={label}
      onChange={(e) => {
        void choose(e.currentTarget.files);
        // The same file may be chosen again after it was removed.
        e.currentTarget.value = '';
      }}
    />
  );

  return (
    <Stack gap="xs">
      <Text fw={600}>写真・ファイル</Text>
      {value.length > 0 && (
        <Group gap="xs" data-testid="attachment-picker-files">
          {value.map((f, i) => (
            // No fixed width: a photo and its 外す button side by side are wider than the thumbnail, and a
            // card cut to it hid the button on a phone.
            <Card key={f.id} withBorder padding={4}>
              <Group gap={4} wrap="nowrap" justify="space-between">
                {looksLikeImage(f) ? (
                  <Image
                    src={fileHref(services.config.apiBaseUrl, f.url)}
                    alt={f.filename}
                    w={56}
                    h={56}
                    fit="cover"
                    radius="sm"
                    fallbackSrc="data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=="
                  />
                ) : (
                  <Text size="sm" maw={200} truncate>
                    📎 {f.filename}
                  </Text>
                )}
                <ActionIcon
                  variant="subtle"
                  color="red"
                  size="xl"
                  aria-label={`${f.filename}を外す`}
                  onClick={() => onChange(value.filter((_, j) => j !== i))}
                >
                  ×
                </ActionIcon>
              </Group>
            </Card>
          ))}
        </Group>
      )}
      {/* 撮影 opens a phone's rear camera directly (`capture`); 写真を選ぶ offers the library too. */}
      {picker(cameraInput, 'image/*', '撮影する', true)}
      {picker(photoInput, 'image/*', '写真を選ぶ')}
      {picker(fileInput, undefined, 'ファイルを選ぶ')}
      <Group gap="xs" grow>
        {(
          [
            [cameraInput, '撮影'],
            [photoInput, '写真を選ぶ'],
            [fileInput, 'ファイル'],
          ] as const
        ).map(([ref, text]) => (
          <Button
            key={text}
            variant="light"
            size="md"
            px="xs"
            loading={busy > 0}
            disabled={value.length >= maxAttachments}
            onClick={() => ref.current?.click()}
          >
            {text}
          </Button>
        ))}
      </Group>
      {(problem ?? error) && (
        <Alert color={problem === offlineAttachmentMessage ? 'yellow' : 'red'} role="alert" p="xs">
          {problem ?? error}
        </Alert>
      )}
    </Stack>
  );
}
