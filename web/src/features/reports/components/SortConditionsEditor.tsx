import { ActionIcon, Button, Group, SegmentedControl, Select, Stack, Text } from '@mantine/core';
import type { ReportItemDefinition } from '@renkei/contracts';
import { ReorderButtons } from '../../../ui/ReorderButtons.tsx';
import { groupedItemOptions, isFormulaItem, type EditorDisplayItem, type EditorValues } from '../report-editor.ts';

type Sort = EditorValues['sort_conditions'][number];

/** Sort keys in priority order: any sortable item, and the report's computed columns. */
export function SortConditionsEditor({
  items,
  displayItems,
  value,
  onChange,
  errors,
}: {
  items: readonly ReportItemDefinition[];
  displayItems: readonly EditorDisplayItem[];
  value: readonly Sort[];
  onChange: (next: Sort[]) => void;
  errors: Record<string, string>;
}) {
  const formulas = displayItems.filter(isFormulaItem).map((d) => ({ value: d.item_key, label: d.label || d.item_key }));
  const options = [
    ...groupedItemOptions(items.filter((i) => i.sortable)),
    ...(formulas.length > 0 ? [{ group: '計算列', items: formulas }] : []),
  ];
  const set = (index: number, next: Sort) => onChange(value.map((s, i) => (i === index ? next : s)));
  const move = (from: number, to: number) => {
    const next = [...value];
    const [moved] = next.splice(from, 1);
    next.splice(to, 0, moved!);
    onChange(next);
  };
  return (
    <Stack gap="xs">
      {value.length === 0 && (
        <Text size="sm" c="dimmed">
          指定がないときは行の既定の順に並びます
        </Text>
      )}
      {value.map((sort, index) => (
        <Group key={index} gap="xs" align="flex-start" wrap="nowrap" data-testid="sort-row">
          <ReorderButtons
            name={`並び順${index + 1}`}
            index={index}
            count={value.length}
            disabled={false}
            onMove={move}
          />
          <Select
            aria-label={`並び順${index + 1}の項目`}
            placeholder="項目"
            data={options}
            value={sort.item_key || null}
            onChange={(key) => key && set(index, { ...sort, item_key: key })}
            error={errors[`sort_conditions.${index}.item_key`]}
            searchable
            w={220}
          />
          <SegmentedControl
            aria-label={`並び順${index + 1}の向き`}
            value={sort.direction}
            onChange={(d) => set(index, { ...sort, direction: d as Sort['direction'] })}
            data={[
              { value: 'asc', label: '昇順' },
              { value: 'desc', label: '降順' },
            ]}
          />
          <ActionIcon
            variant="subtle"
            color="red"
            mt={6}
            aria-label={`並び順${index + 1}を削除`}
            onClick={() => onChange(value.filter((_, i) => i !== index))}
          >
            ✕
          </ActionIcon>
        </Group>
      ))}
      <Group>
        <Button
          size="xs"
          variant="light"
          disabled={value.length >= 10}
          onClick={() => onChange([...value, { item_key: '', direction: 'desc' }])}
        >
          並び順を追加
        </Button>
      </Group>
    </Stack>
  );
}
