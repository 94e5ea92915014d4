import {
  Alert,
  Button,
  Group,
  ScrollArea,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  type SelectProps,
} from '@mantine/core';
import { listColumns, type MappedListType } from '@renkei/contracts';
import { useState } from 'react';
import type { FileHead } from '../file-head.ts';
import { columnCountOf, columnIndexOf, type ListMappingValues } from '../list-mapping.ts';

const listName: Record<MappedListType, string> = { referral: '紹介リスト', reverse_referral: '逆紹介リスト' };
const otherListOf = (type: MappedListType): MappedListType => (type === 'referral' ? 'reverse_referral' : 'referral');

/**
 * A header column that only the other list has: 逆紹介… in a 紹介 list; the referring institution (紹介元,
 * 紹介元病院名, 紹介元コード …) in a 逆紹介 list. Null when the file has no header or none such.
 */
function otherListColumn(type: MappedListType, head: FileHead): string | null {
  const names = head.header ?? [];
  const found =
    type === 'referral'
      ? names.find((h) => h.normalize('NFKC').includes('逆紹介'))
      : // The referring institution; not 紹介元診療科 or 紹介元医師, which a 逆紹介 list may name its own side by.
        names.find((h) => /^紹介元(医療機関|病院|施設|医院|機関|名称|コード|$)/.test(h.normalize('NFKC').trim()));
  return found ?? null;
}

/** How many of the first rows' values an option of a file without a header shows. */
const sampleValues = 2;

/**
 * The mapping step of a list: each canonical column (right) gets a column of the file (left), with
 * the first rows previewed through the mapping. Required columns are marked; saving needs them. A file
 * with a header is mapped by its column names; one without, by position (「1列目」「2列目」…, each
 * shown with its first values), which the saved mapping keeps as numbers.
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
  initial: ListMappingValues;
  saving: boolean;
  onSubmit: (mapping: ListMappingValues) => void;
  onCancel: () => void;
}) {
  const [mapping, setMapping] = useState<ListMappingValues>(initial);
  const { columns, required } = listColumns[type];
  const byPosition = head.header === null;
  const missing = required.filter((group) => !group.some((c: string) => mapping[c] !== undefined));
  const requiredColumns = new Set<string>(required.filter((g) => g.length === 1).map((g) => g[0]));
  const cell = (row: string[], column: string) => {
    const index = columnIndexOf(head, mapping[column]);
    return index >= 0 ? (row[index] ?? '') : '';
  };
  const samplesOf = (i: number) =>
    head.rows
      .map((r) => r[i] ?? '')
      .filter((v) => v !== '')
      .slice(0, sampleValues);
  const options = byPosition
    ? Array.from({ length: columnCountOf(head) }, (_, i) => {
        const samples = samplesOf(i);
        return { value: String(i + 1), label: `${i + 1}列目${samples.length > 0 ? `（${samples.join('、')}）` : ''}` };
      })
    : head.header!.map((h) => ({ value: h, label: h }));
  // A header says what a column is called, not what it holds (医療機関 or 医療機関CD?): each option of a
  // file with a header shows its first values under its name. They are left out of the option's name, which
  // stays the column's (what the field shows once chosen); the preview below shows them to every reader.
  const headerSamples = new Map(byPosition ? [] : head.header!.map((h, i) => [h, samplesOf(i)]));
  const renderOption: SelectProps['renderOption'] = byPosition
    ? undefined
    : ({ option }) => {
        const samples = headerSamples.get(option.value) ?? [];
        return (
          <div>
            <Text size="xs">{option.label}</Text>
            {samples.length > 0 && (
              <Text size="xs" c="dimmed" aria-hidden data-testid="mapping-option-samples">
                {samples.join('、')}
              </Text>
            )}
          </div>
        );
      };
  const mapped = columns.filter((c) => mapping[c] !== undefined);
  const otherList = otherListColumn(type, head);
  return (
    <Stack gap="sm" data-testid="mapping-step">
      {byPosition && (
        <Alert color="blue" title="見出し行がありません" data-testid="mapping-by-position">
          1行目からデータとして取り込みます。取り込む項目ごとに、ファイルの何列目かを選んでください（括弧内は先頭の行の値です）。
        </Alert>
      )}
      {otherList && (
        // Mapped by hand, a 逆紹介 list goes in as referrals (or the reverse) without a single refused row.
        <Alert color="yellow" title={`${listName[otherListOf(type)]}のようです`} data-testid="mapping-other-list">
          このファイルには「{otherList}」の列があります。{listName[otherListOf(type)]}なら、キャンセルして「
          {listName[otherListOf(type)]}」のカードからアップロードしてください。
        </Alert>
      )}
      <Text size="sm">
        ファイルの列を、取り込む項目に対応付けてください（* は必須、「または」のどちらか一方も必須）。
      </Text>
      <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="xs">
        {columns.map((column) => {
          const target = mapping[column];
          return (
            <Select
              key={column}
              label={`${column}${requiredColumns.has(column) ? ' *' : ''}`}
              placeholder="取り込まない"
              data={options}
              renderOption={renderOption}
              value={target === undefined ? null : String(target)}
              onChange={(value) =>
                setMapping((m) => {
                  const next = { ...m };
                  if (value) next[column] = byPosition ? Number(value) : value;
                  else delete next[column];
                  return next;
                })
              }
              clearable
              // Choosing the chosen column again keeps it (the × clears it); a saved mapping pre-fills the step.
              allowDeselect={false}
              size="xs"
            />
          );
        })}
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
