import { ActionIcon, Button, Group, Paper, SegmentedControl, Select, Stack, Text, TextInput } from '@mantine/core';
import type { ReportItemDefinition } from '@renkei/contracts';
import { useState } from 'react';
import { ReorderButtons } from '../../../ui/ReorderButtons.tsx';
import {
  aggregationMethodLabels,
  formulaOperands,
  groupedItemOptions,
  isFormulaItem,
  newFormulaKey,
  type EditorDisplayItem,
} from '../report-editor.ts';

const maxItems = 100;

/**
 * The report's columns in order: catalog items picked by category, each with an optional display name and,
 * for figures per period, its aggregation; computed columns (left 引く/割る right) beside them.
 */
export function DisplayItemsEditor({
  items,
  value,
  onChange,
  errors,
}: {
  items: readonly ReportItemDefinition[];
  value: readonly EditorDisplayItem[];
  onChange: (next: EditorDisplayItem[]) => void;
  errors: Record<string, string>;
}) {
  const [picked, setPicked] = useState<string | null>(null);
  const used = new Set(value.map((v) => v.item_key));
  const byKey = new Map(items.map((i) => [i.key, i]));
  const operands = formulaOperands(items).map((i) => ({ value: i.key, label: i.label }));
  const set = (index: number, next: EditorDisplayItem) => onChange(value.map((v, i) => (i === index ? next : v)));
  const move = (from: number, to: number) => {
    const next = [...value];
    const [moved] = next.splice(from, 1);
    next.splice(to, 0, moved!);
    onChange(next);
  };
  const add = () => {
    if (!picked) return;
    onChange([...value, { item_key: picked, label: null, aggregation_method: null, formula: null }]);
    setPicked(null);
  };
  const addFormula = () =>
    onChange([
      ...value,
      {
        item_key: newFormulaKey(value),
        label: '',
        aggregation_method: null,
        formula: { left: '', operator: 'minus', right: '' },
      },
    ]);

  return (
    <Stack gap="xs">
      {value.map((entry, index) => {
        const item = byKey.get(entry.item_key);
        const formula = isFormulaItem(entry);
        const name = formula ? entry.label || `計算列${index + 1}` : (item?.label ?? entry.item_key);
        const error = (field: string) => errors[`display_items.${index}.${field}`];
        return (
          <Paper key={entry.item_key} withBorder p="xs" data-testid="display-item">
            <Group gap="xs" align="flex-start" wrap="nowrap">
              <ReorderButtons name={name} index={index} count={value.length} disabled={false} onMove={move} />
              {formula ? (
                <Group gap="xs" align="flex-start" wrap="wrap" style={{ flex: 1 }}>
                  <TextInput
                    aria-label={`計算列${index + 1}の名前`}
                    placeholder="計算列の名前"
                    value={entry.label ?? ''}
                    onChange={(e) => set(index, { ...entry, label: e.currentTarget.value })}
                    error={error('label')}
                    w={180}
                  />
                  <Text mt={6}>=</Text>
                  <Select
                    aria-label={`計算列${index + 1}の左の項目`}
                    placeholder="項目"
                    data={operands}
                    value={entry.formula?.left || null}
                    onChange={(left) => set(index, { ...entry, formula: { ...entry.formula!, left: left ?? '' } })}
                    error={error('formula.left') ?? error('formula')}
                    w={170}
                  />
                  <SegmentedControl
                    aria-label={`計算列${index + 1}の計算`}
                    value={entry.formula?.operator ?? 'minus'}
                    onChange={(op) =>
                      set(index, { ...entry, formula: { ...entry.formula!, operator: op as 'minus' | 'slash' } })
                    }
                    data={[
                      { value: 'minus', label: '引く' },
                      { value: 'slash', label: '割る' },
                    ]}
                  />
                  <Select
                    aria-label={`計算列${index + 1}の右の項目`}
                    placeholder="項目"
                    data={operands}
                    value={entry.formula?.right || null}
                    onChange={(right) => set(index, { ...entry, formula: { ...entry.formula!, right: right ?? '' } })}
                    error={error('formula.right')}
                    w={170}
                  />
                </Group>
              ) : (
                <Group gap="xs" align="flex-start" wrap="wrap" style={{ flex: 1 }}>
                  <Stack gap={0} w={170}>
                    <Text size="sm" fw={600} mt={6}>
                      {item?.label ?? entry.item_key}
                    </Text>
                    {error('item_key') && (
                      <Text size="xs" c="red">
                        {error('item_key')}
                      </Text>
                    )}
                  </Stack>
                  <TextInput
                    aria-label={`${name}の表示名`}
                    placeholder="表示名（省略時は項目名）"
                    value={entry.label ?? ''}
                    onChange={(e) => set(index, { ...entry, label: e.currentTarget.value })}
                    error={error('label')}
                    w={220}
                  />
                  {item?.periodic && item.aggregation_methods.length > 0 && (
                    <Select
                      aria-label={`${name}の集計方法`}
                      data={item.aggregation_methods.map((m) => ({ value: m, label: aggregationMethodLabels[m] }))}
                      value={entry.aggregation_method ?? 'sum'}
                      onChange={(m) =>
                        set(index, {
                          ...entry,
                          aggregation_method: (m as EditorDisplayItem['aggregation_method']) ?? null,
                        })
                      }
                      error={error('aggregation_method')}
                      allowDeselect={false}
                      w={110}
                    />
                  )}
                </Group>
              )}
              <ActionIcon
                variant="subtle"
                color="red"
                mt={6}
                aria-label={`${name}を削除`}
                onClick={() => onChange(value.filter((_, i) => i !== index))}
              >
                ✕
              </ActionIcon>
            </Group>
          </Paper>
        );
      })}
      {errors.display_items && (
        <Text size="sm" c="red">
          {errors.display_items}
        </Text>
      )}
      <Group gap="xs" align="flex-end">
        <Select
          label="項目を追加"
          placeholder="カテゴリから項目を選択"
          data={groupedItemOptions(items, used)}
          value={picked}
          onChange={setPicked}
          searchable
          w={260}
          data-testid="display-item-picker"
        />
        <Button variant="light" onClick={add} disabled={!picked || value.length >= maxItems}>
          追加
        </Button>
        <Button variant="subtle" onClick={addFormula} disabled={value.length >= maxItems}>
          計算列を追加
        </Button>
      </Group>
    </Stack>
  );
}
