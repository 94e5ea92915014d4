import { Button, Card, FileButton, Group, Stack, Text } from '@mantine/core';
import { maxLogoBytes } from '@renkei/contracts';
import { useState } from 'react';
import { isApiError } from '../../../api/api-errors.ts';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useDeleteTenantLogo, useUpdateTenantLogo } from '../tenant-settings.queries.ts';
import { TenantLogo } from './TenantLogo.tsx';

const acceptedTypes = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'];

/** The file's bytes in base64, as the logo call takes them. */
function toBase64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result).split(',')[1] ?? '');
    reader.onerror = () => reject(reader.error ?? new Error('read failed'));
    reader.readAsDataURL(file);
  });
}

/** The logo shown in the header: saved at once on choosing a file (it is not part of the form below). */
export function TenantLogoField({ logo, tenantName }: { logo: string | null; tenantName: string }) {
  const upload = useUpdateTenantLogo();
  const remove = useDeleteTenantLogo();
  const onError = useMutationErrorHandler();
  const [error, setError] = useState<string | null>(null);

  const choose = async (file: File | null) => {
    if (!file) return;
    setError(null);
    // The server reads the type from the bytes; these checks only spare a useless upload.
    if (!acceptedTypes.includes(file.type)) {
      setError('ロゴ画像はPNG・JPEG・GIF・WebPのいずれかにしてください');
      return;
    }
    if (file.size > maxLogoBytes) {
      setError(`ロゴ画像は${maxLogoBytes / 1024}KB以下にしてください`);
      return;
    }
    try {
      await upload.mutateAsync(await toBase64(file));
      toast.success('ロゴを登録しました');
    } catch (e) {
      if (isApiError(e) && e.status === 422) setError(e.errors[0]?.message ?? e.message);
      else onError(e);
    }
  };

  const clear = async () => {
    setError(null);
    try {
      await remove.mutateAsync(undefined);
      toast.success('ロゴを削除しました');
    } catch (e) {
      onError(e);
    }
  };

  return (
    <Card withBorder>
      <Stack gap="xs">
        <Text size="sm" fw={500}>
          ロゴ
        </Text>
        <Text size="xs" c="dimmed">
          ヘッダーに表示されます。PNG・JPEG・GIF・WebP、{maxLogoBytes / 1024}KBまで。
        </Text>
        {logo ? (
          <TenantLogo logo={logo} alt={`${tenantName}のロゴ`} height={48} />
        ) : (
          <Text size="sm" c="dimmed">
            未設定です。
          </Text>
        )}
        <Group gap="xs">
          <FileButton onChange={(file) => void choose(file)} accept={acceptedTypes.join(',')}>
            {(props) => (
              <Button {...props} variant="default" size="xs" loading={upload.isPending}>
                {logo ? 'ロゴを変更' : 'ロゴを登録'}
              </Button>
            )}
          </FileButton>
          {logo && (
            <Button variant="subtle" color="red" size="xs" loading={remove.isPending} onClick={() => void clear()}>
              ロゴを削除
            </Button>
          )}
        </Group>
        {error && (
          <Text size="sm" c="red" role="alert">
            {error}
          </Text>
        )}
      </Stack>
    </Card>
  );
}
