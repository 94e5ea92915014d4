import { ActionIcon, Group } from '@mantine/core';

/** ↑/↓ buttons that move row `index` of `count` one place; labelled with the row's name for screen readers. */
export function ReorderButtons({
  name,
  index,
  count,
  disabled,
  onMove,
}: {
  name: string;
  index: number;
  count: number;
  disabled: boolean;
  onMove: (from: number, to: number) => void;
}) {
  return (
    <Group gap={4} wrap="nowrap">
      <ActionIcon
        size="sm"
        variant="default"
        aria-label={`${name}を上へ`}
        disabled={index === 0 || disabled}
        onClick={() => onMove(index, index - 1)}
      >
        ↑
      </ActionIcon>
      <ActionIcon
        size="sm"
        variant="default"
        aria-label={`${name}を下へ`}
        disabled={index === count - 1 || disabled}
        onClick={() => onMove(index, index + 1)}
      >
        ↓
      </ActionIcon>
    </Group>
  );
}
