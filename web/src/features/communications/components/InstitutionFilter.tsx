import { MultiSelect } from '@mantine/core';
import { useQueries } from '@tanstack/react-query';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { useInstitutionSearch } from '../../../ui/InstitutionOption.tsx';
import { institutionQueries } from '../../medical-institutions/medical-institutions.queries.ts';

/**
 * Institutions picked by a typed name (the partner search's normalised keyword), several at once. The
 * URL keeps their ids only, so the names of the picked ones come from their summaries (cached with the
 * CRM page's).
 */
export function InstitutionFilter({
  value,
  onChange,
  max,
}: {
  value: readonly string[];
  onChange: (ids: string[]) => void;
  max: number;
}) {
  const { api } = useServices();
  const [keyword, setKeyword] = useState('');
  const { found, results, renderOption } = useInstitutionSearch(keyword, keyword.trim().length > 0);
  const picked = useQueries({
    queries: value.map((id) => ({ ...institutionQueries.summary(api, id), retry: false })),
  });
  const names = new Map<string, string>();
  value.forEach((id, i) => {
    const q = picked[i]!;
    names.set(id, q.data?.name ?? (q.isError ? '（不明な医療機関）' : '読み込み中…'));
  });
  for (const m of results) if (!names.has(m.id)) names.set(m.id, m.name);
  return (
    <MultiSelect
      label="医療機関"
      searchable
      clearable
      placeholder={value.length ? undefined : '名称・カナ・住所で検索'}
      searchValue={keyword}
      onSearchChange={setKeyword}
      data={[...names].map(([id, name]) => ({ value: id, label: name }))}
      value={[...value]}
      onChange={onChange}
      maxValues={max}
      // The server searched already (normalised): the options are shown as found.
      filter={({ options }) => options}
      renderOption={renderOption}
      nothingFoundMessage={
        keyword.trim() ? (found.isFetching ? '検索中…' : '見つかりません') : '名称を入力してください'
      }
      w={{ base: '100%', sm: 360 }}
    />
  );
}
