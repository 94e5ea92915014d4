import { Select } from '@mantine/core';
import { useDebouncedValue } from '@mantine/hooks';
import { useState } from 'react';
import { useInstitutionSearch } from '../../../ui/InstitutionOption.tsx';
import type { PickedInstitution } from '../../../ui/InstitutionPicker.tsx';

/**
 * An optional institution picked by a typed name (the partner search's normalised keyword), cleared
 * with its × button: the /tasks filter and a task's institution alike. Mount it again (`key`) when the
 * value changes from outside, so the input shows the new name.
 */
export function TaskInstitutionSelect({
  value,
  onChange,
  label,
  placeholder,
  error,
  w,
}: {
  value: PickedInstitution | null;
  onChange: (value: PickedInstitution | null) => void;
  /** None in a filter row: the input is then named 医療機関 to assistive tech only. */
  label?: string;
  placeholder: string;
  error?: string | undefined;
  w?: number;
}) {
  const [keyword, setKeyword] = useState(value?.name ?? '');
  const [typed] = useDebouncedValue(keyword.trim(), 250);
  // The input shows the picked name: no search for it until something else is typed.
  const searching = typed !== '' && typed !== value?.name;
  const { found, results, renderOption } = useInstitutionSearch(typed, searching);
  const options = results.map((m) => ({ value: m.id, label: m.name }));
  // The picked one stays an option, so the input keeps showing its name while other names are found.
  if (value && !options.some((o) => o.value === value.id)) options.unshift({ value: value.id, label: value.name });

  return (
    <Select
      label={label}
      aria-label={label ? undefined : '医療機関'}
      placeholder={placeholder}
      searchable
      clearable
      // Mantine leaves the × out of the tab order and hidden from screen readers; here it is the only way
      // to drop the institution, so it is reachable by keyboard and named.
      clearButtonProps={{ 'aria-label': '医療機関の選択を外す', 'aria-hidden': false, tabIndex: 0 }}
      w={w}
      searchValue={keyword}
      onSearchChange={setKeyword}
      data={options}
      value={value?.id ?? null}
      onChange={(id, option) => onChange(id && option ? { id, name: option.label } : null)}
      nothingFoundMessage={
        keyword.trim() === '' ? '名称を入力してください' : found.isFetching || !searching ? '検索中…' : '見つかりません'
      }
      // The search has already matched (kana, full/half width): the typed text would hide its answers.
      filter={({ options: all }) => all}
      renderOption={renderOption}
      error={error}
    />
  );
}
