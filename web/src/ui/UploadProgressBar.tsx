import { Group, Progress, Stack, Text } from '@mantine/core';

/** How much of a file has been sent (bytes of the file). */
export interface UploadProgressValue {
  loaded: number;
  total: number;
}

const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(1);

/** The percent sent, one decimal, never 100 before everything is sent. */
function uploadPercent({ loaded, total }: UploadProgressValue): number {
  if (total <= 0) return 0;
  const percent = Math.floor((loaded / total) * 1000) / 10;
  return Math.min(100, percent);
}

/**
 * A file upload under way: a bar with the percent and 「アップロード中 12.3 / 48.0 MB」. The import that
 * follows has its own progress (the history's rows); this covers only the transfer.
 */
export function UploadProgressBar({ progress, testId }: { progress: UploadProgressValue; testId?: string }) {
  const percent = uploadPercent(progress);
  return (
    <Stack gap={4} data-testid={testId}>
      <Progress value={percent} animated={percent < 100} aria-label="アップロードの進み具合" size="md" />
      <Group justify="space-between" gap="xs">
        <Text size="xs" c="dimmed">
          アップロード中 {mb(progress.loaded)} / {mb(progress.total)} MB
        </Text>
        <Text size="xs" c="dimmed">
          {percent.toFixed(1)}%
        </Text>
      </Group>
    </Stack>
  );
}
