import { Alert, Button, Group, ScrollArea, Select, SimpleGrid, Stack, Table, Text } from '@mantine/core';
import { listColumns, type MappedListType } from '@renkei/contracts';
import { useState } from 'react';
import type { FileHead } from '../file-head.ts';

/**
 * The mapping step of a list: each canonical column (right) gets a column of the file (left), with
 * the first rows previewed through the mapping. Required columns are marked; saving needs them.
 */
export function MappingStep({
  type,
  head,
  initial,
  saving,
  onSubmit,
  onCancel,
}: {
  type: MappedListType;
  head: FileHead;
  initial: Record<string, string>;
  saving: boolean;
  onSubmit: (mapping: Record<string, string>) => void;
  onCancel: () => void;
}) {
  const [mapping, setMapping] = useState<Record<string, string>>(initial);
  const { columns, required } = listColumns[type];
  const header = head.header ?? [];
  const missing = required.filter((group) => !group.some((c: string) => mapping[c]));
  const requiredColumns = new Set<string>(required.filter((g) => g.length === 1).map((g) => g[0]));
  const cell = (row: string[], column: string) => {
    const index = mapping[column] ? header.indexOf(mapping[column]) : -1;
    return index >= 0 ? (row[index] ?? '') : '';
  };
  if (!head.header)
    return (
      <Alert color="yellow" title="見出し行がありません">
        列の対応付けには見出し行（1行目の列名）が必要です。見出し行を付けてからアップロードしてください。
      </Alert>
    );
  const mapped = columns.filter((c) => mapping[c]);
  return (
    <Stack gap="sm" data-testid="mapping-step">
      <Text size="sm">
        ファイルの列を、取り込む項目に対応付けてください（* は必須、「または」のどちらか一方も必須）。
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
        {columns.map((column) => (
          <Select
            key={column}
            label={`${column}${requiredColumns.has(column) ? ' *' : ''}`}
            placeholder="取り込まない"
            data={header.map((h) => ({ value: h, label: h }))}
            value={mapping[column] ?? null}
            onChange={(value) =>
              setMapping((m) => {
                const next = { ...m };
                if (value) next[column] = value;
                else delete next[column];
                return next;
              })
            }
            clearable
            // Choosing the chosen column again keeps it (the × clears it); a saved mapping pre-fills the step.
            allowDeselect={false}
            size="xs"
          />
        ))}
      </SimpleGrid>
      {missing.length > 0 && (
        <Text size="sm" c="red">
          {missing.map((g) => `「${g.join('」または「')}」`).join('、')}に対応する列を選んでください
        </Text>
      )}
      <Text size="sm" fw={500}>
        プレビュー（先頭{head.rows.length}行）
      </Text>
      <ScrollArea>
        <Table withTableBorder fz="xs" data-testid="mapping-preview">
          <Table.Thead>
            <Table.Tr>
              {mapped.map((c) => (
                <Table.Th key={c}>{c}</Table.Th>
              ))}
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {head.rows.map((row, i) => (
              <Table.Tr key={i}>
                {mapped.map((c) => (
                  <Table.Td key={c}>{cell(row, c)}</Table.Td>
                ))}
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      </ScrollArea>
      <Group justify="flex-end" gap="xs">
        <Button variant="default" onClick={onCancel}>
          キャンセル
        </Button>
        <Button onClick={() => onSubmit(mapping)} disabled={missing.length > 0} loading={saving}>
          対応付けを保存して取り込む
        </Button>
      </Group>
    </Stack>
  );
}
