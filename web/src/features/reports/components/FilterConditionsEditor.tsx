import { ActionIcon, Button, Group, MultiSelect, Select, Stack, Text, TextInput } from '@mantine/core';
import type { ReportItemDefinition } from '@renkei/contracts';
import {
  filterForItem,
  groupedItemOptions,
  inputToRate,
  operatorsFor,
  rateToInput,
  valueArity,
  withOperator,
  type EditorFilter,
} from '../report-editor.ts';

/**
 * Conditions on a report's items (its filters, or an alert's conditions): the operators follow the item's
 * value type, and the values its form — choices for a selection, dates, numbers (rates in percent), text.
 * `field` is the conditions' name in a 422 (`filter_conditions`), so a message lands on its row.
 */
export function FilterConditionsEditor({
  items,
  conditions,
  onChange,
  errors,
  field,
  addLabel = '条件を追加',
  emptyText = '条件はありません（すべての行を表示します）',
  max,
}: {
  items: readonly ReportItemDefinition[];
  conditions: readonly EditorFilter[];
  onChange: (next: EditorFilter[]) => void;
  errors: Record<string, string>;
  field: string;
  addLabel?: string;
  /** What no condition means here (a filter shows every row; an alert's conditions mean something else). */
  emptyText?: string;
  max: number;
}) {
  const filterable = items.filter((i) => i.filterable);
  const options = groupedItemOptions(filterable);
  const set = (index: number, next: EditorFilter) => onChange(conditions.map((c, i) => (i === index ? next : c)));
  return (
    <Stack gap="xs">
      {conditions.length === 0 && (
        <Text size="sm" c="dimmed">
          {emptyText}
        </Text>
      )}
      {conditions.map((condition, index) => {
        const item = filterable.find((i) => i.key === condition.item_key);
        const error = (name: string) => errors[`${field}.${index}.${name}`];
        return (
          <Group key={index} align="flex-start" gap="xs" wrap="nowrap" data-testid="filter-row">
            <Select
              aria-label={`条件${index + 1}の項目`}
              placeholder="項目"
              data={options}
              value={condition.item_key || null}
              onChange={(key) =>
                key &&
                set(
                  index,
                  filterForItem(
                    filterable.find((i) => i.key === key),
                    key,
                  ),
                )
              }
              error={error('item_key')}
              searchable
              w={200}
            />
            <Select
              aria-label={`条件${index + 1}の条件`}
              data={item ? operatorsFor(item.value_type) : []}
              value={condition.operator}
              onChange={(op) => op && set(index, withOperator(condition, op as EditorFilter['operator']))}
              error={error('operator')}
              allowDeselect={false}
              disabled={!item}
              w={170}
            />
            <FilterValues
              item={item}
              condition={condition}
              index={index}
              error={error('values')}
              onChange={(values) => set(index, { ...condition, values })}
            />
            <ActionIcon
              variant="subtle"
              color="red"
              mt={6}
              aria-label={`条件${index + 1}を削除`}
              onClick={() => onChange(conditions.filter((_, i) => i !== index))}
            >
              ✕
            </ActionIcon>
          </Group>
        );
      })}
      {errors[field] && (
        <Text size="sm" c="red">
          {errors[field]}
        </Text>
      )}
      <Group>
        <Button
          size="xs"
          variant="light"
          disabled={conditions.length >= max}
          onClick={() => onChange([...conditions, { item_key: '', operator: 'eq', values: [] }])}
        >
          {addLabel}
        </Button>
      </Group>
    </Stack>
  );
}

function FilterValues({
  item,
  condition,
  index,
  error,
  onChange,
}: {
  item: ReportItemDefinition | undefined;
  condition: EditorFilter;
  index: number;
  error: string | undefined;
  onChange: (values: string[]) => void;
}) {
  const arity = valueArity(condition.operator);
  if (!item || arity === 0)
    return error ? (
      <Text size="sm" c="red">
        {error}
      </Text>
    ) : null;
  const name = `条件${index + 1}の値`;
  if (item.value_type === 'selection' && item.selections.length > 0)
    return (
      <MultiSelect
        aria-label={name}
        data={item.selections}
        value={condition.values}
        onChange={onChange}
        error={error}
        searchable
        w={280}
      />
    );
  if (arity === 'many')
    // A selection whose choices the tenant has not given (yet): values one per line of a comma list.
    return (
      <TextInput
        aria-label={name}
        placeholder="カンマ区切りで入力"
        value={condition.values.join(',')}
        onChange={(e) => onChange(e.currentTarget.value.split(',').map((v) => v.trim()))}
        error={error}
        w={280}
      />
    );
  const type = item.value_type === 'date' ? 'date' : item.value_type === 'string' ? 'text' : 'number';
  const rate = item.value_type === 'rate';
  const input = (position: 0 | 1, label: string) => (
    <TextInput
      aria-label={label}
      type={type}
      rightSection={rate ? '%' : undefined}
      value={rate ? rateToInput(condition.values[position]) : (condition.values[position] ?? '')}
      onChange={(e) => {
        const next = [...condition.values];
        while (next.length < position) next.push('');
        next[position] = rate ? inputToRate(e.currentTarget.value) : e.currentTarget.value;
        onChange(next);
      }}
      error={position === 0 ? error : undefined}
      w={type === 'text' ? 240 : 150}
    />
  );
  return arity === 2 ? (
    <Group gap={4} align="flex-start" wrap="nowrap">
      {input(0, `${name}（から）`)}
      <Text mt={6}>〜</Text>
      {input(1, `${name}（まで）`)}
    </Group>
  ) : (
    input(0, name)
  );
}
