import { Anchor, Group, Image, Stack, Text } from '@mantine/core';
import type { UploadedFile } from '@renkei/contracts';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { fileHref, looksLikeImage } from '../attachment-files.ts';

/** A photo as a thumbnail that opens full size; if it cannot be shown, its name. */
function Thumbnail({ file, href }: { file: UploadedFile; href: string }) {
  const [failed, setFailed] = useState(false);
  if (failed) return <FileLink file={file} href={href} />;
  return (
    <Anchor href={href} target="_blank" rel="noopener" aria-label={`${file.filename}を開く`}>
      <Image
        src={href}
        alt={file.filename}
        w={72}
        h={72}
        fit="cover"
        radius="sm"
        loading="lazy"
        onError={() => setFailed(true)}
      />
    </Anchor>
  );
}

function FileLink({ file, href }: { file: UploadedFile; href: string }) {
  // The server sends anything it cannot show safely as a download.
  return (
    <Anchor href={href} download={file.filename} size="sm" target="_blank" rel="noopener">
      📎 {file.filename}
    </Anchor>
  );
}

/** A record's attachments: photos as thumbnails (full size on tap), other files as download links. */
export function AttachmentList({ files }: { files: UploadedFile[] }) {
  const { config } = useServices();
  if (files.length === 0) return null;
  const images = files.filter(looksLikeImage);
  const others = files.filter((f) => !looksLikeImage(f));
  return (
    <Stack gap={4} data-testid="communication-attachments">
      <Text size="xs" c="dimmed">
        添付ファイル
      </Text>
      {images.length > 0 && (
        <Group gap="xs">
          {images.map((f) => (
            <Thumbnail key={f.id} file={f} href={fileHref(config.apiBaseUrl, f.url)} />
          ))}
        </Group>
      )}
      {others.map((f) => (
        <FileLink key={f.id} file={f} href={fileHref(config.apiBaseUrl, f.url)} />
      ))}
    </Stack>
  );
}
