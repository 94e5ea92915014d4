import { Button, Group, Select, Text, type MantineSize } from '@mantine/core';
import { useState } from 'react';
import { useInstitutionSearch } from './InstitutionOption.tsx';

export interface PickedInstitution {
  id: string;
  name: string;
}

/**
 * An institution picked by a typed name (the partner search's normalised keyword), or the picked one
 * with 変更 to pick another; `locked` keeps the given one (a form opened for that institution).
 */
export function InstitutionPicker({
  value,
  onChange,
  error,
  locked = false,
  size = 'sm',
}: {
  value: PickedInstitution | null;
  onChange: (value: PickedInstitution | null) => void;
  error?: string | undefined;
  locked?: boolean;
  size?: MantineSize;
}) {
  const [keyword, setKeyword] = useState('');
  const { results, renderOption } = useInstitutionSearch(keyword, keyword.trim().length > 0);
  if (value)
    return (
      <Group justify="space-between" wrap="nowrap">
        <Text fw={600} data-testid="picked-institution">
          {value.name}
        </Text>
        {!locked && (
          <Button variant="subtle" size="compact-sm" onClick={() => onChange(null)}>
            変更
          </Button>
        )}
      </Group>
    );
  return (
    <Select
      label="医療機関"
      required
      size={size}
      searchable
      placeholder="名称・カナ・住所で検索"
      searchValue={keyword}
      onSearchChange={setKeyword}
      data={results.map((m) => ({ value: m.id, label: m.name }))}
      renderOption={renderOption}
      onChange={(id) => {
        const picked = results.find((m) => m.id === id);
        if (picked) onChange({ id: picked.id, name: picked.name });
      }}
      nothingFoundMessage={keyword ? '見つかりません' : '名称を入力してください'}
      filter={({ options }) => options}
      error={error}
    />
  );
}
