import { Button, Group, Stack, Text, TextInput } from '@mantine/core';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';

interface Picked {
  id: string;
  name: string;
}

/** Finds institutions of the master by name, kana, address or code and hands the chosen one back. */
export function InstitutionPicker({ label, onPick }: { label: string; onPick: (institution: Picked) => void }) {
  const { api } = useServices();
  const [keyword, setKeyword] = useState('');
  const [results, setResults] = useState<Picked[] | null>(null);
  const [searching, setSearching] = useState(false);

  const search = async () => {
    if (!keyword.trim()) return;
    setSearching(true);
    try {
      const found = await api.searchMedicalInstitutions({ body: { keyword, page: 1, per_page: 10 } });
      setResults(found.data.map((i) => ({ id: i.id, name: i.name })));
    } catch {
      setResults([]);
    } finally {
      setSearching(false);
    }
  };

  return (
    <Stack gap={4}>
      <Group gap="xs" align="end">
        <TextInput
          label={label}
          placeholder="医療機関名・住所・医療機関コード"
          value={keyword}
          onChange={(e) => setKeyword(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault();
              void search();
            }
          }}
          style={{ flex: 1 }}
        />
        <Button variant="light" loading={searching} onClick={() => void search()}>
          検索
        </Button>
      </Group>
      {results?.length === 0 && (
        <Text size="sm" c="dimmed">
          該当する医療機関がありません。キーワードを変えてお試しください。
        </Text>
      )}
      {results?.map((r) => (
        <Button
          key={r.id}
          variant="subtle"
          size="compact-sm"
          justify="start"
          onClick={() => {
            onPick(r);
            setResults(null);
            setKeyword('');
          }}
        >
          {r.name}
        </Button>
      ))}
    </Stack>
  );
}
