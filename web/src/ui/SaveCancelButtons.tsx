import { Button, Group, type MantineSpacing } from '@mantine/core';

/** The キャンセル / 保存 row closing a form (キャンセル only with `onCancel`: a page form has none); 保存 submits it. */
export function SaveCancelButtons({
  saving,
  onCancel,
  testId,
  mt,
}: {
  saving: boolean;
  onCancel?: () => void;
  /** `data-testid` of the 保存 button. */
  testId?: string;
  mt?: MantineSpacing;
}) {
  return (
    <Group justify="flex-end" mt={mt}>
      {onCancel && (
        <Button variant="default" onClick={onCancel}>
          キャンセル
        </Button>
      )}
      <Button type="submit" loading={saving} data-testid={testId}>
        保存
      </Button>
    </Group>
  );
}
