import { Button, Group, Text } from '@mantine/core';
import type { ReactNode } from 'react';

/** An owner's actions on a labels panel (its import, a new label); a member is told why there are none. */
export function LabelPanelActions({
  canEdit,
  importLink,
  onCreate,
  createTestId,
}: {
  canEdit: boolean;
  importLink: ReactNode;
  onCreate: () => void;
  createTestId: string;
}) {
  if (!canEdit)
    return (
      <Text size="sm" c="dimmed">
        ラベルの作成・変更はオーナーのみ行えます。
      </Text>
    );
  return (
    <Group gap="xs">
      {importLink}
      <Button size="xs" onClick={onCreate} data-testid={createTestId}>
        新規作成
      </Button>
    </Group>
  );
}
