import { CheckIcon, Group, Stack, Text, type ComboboxItem, type ComboboxLikeRenderOptionInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useServices } from '../app/services-context.tsx';

/**
 * An institution in a dropdown: its name, and its address to tell one of the same name from another.
 * `checked`: a picked option keeps the check mark Mantine draws by default (a renderOption replaces it).
 */
export function InstitutionOption({
  name,
  address,
  checked = false,
}: {
  name: string;
  address?: string | null | undefined;
  checked?: boolean | undefined;
}) {
  return (
    <Group gap={6} wrap="nowrap" align="flex-start">
      {checked && <CheckIcon size={10} style={{ marginTop: 6, flexShrink: 0 }} />}
      <Stack gap={0}>
        <Text size="sm">{name}</Text>
        {address && (
          <Text size="xs" c="dimmed">
            {address}
          </Text>
        )}
      </Stack>
    </Group>
  );
}

/**
 * The institutions a typed name finds (the partner search's normalised keyword), one cache key for every
 * picker (a name typed in one is searched once), and the option renderer that shows each one's address:
 * institutions of the same name (藤田医院 in several cities) are told apart by it.
 */
export function useInstitutionSearch(keyword: string, enabled: boolean) {
  const { api } = useServices();
  const found = useQuery({
    queryKey: ['medical-institutions', 'picker', keyword],
    queryFn: ({ signal }) => api.searchMedicalInstitutions({ body: { keyword, per_page: 20 }, signal }),
    enabled,
  });
  const results = found.data?.data ?? [];
  const addresses = new Map(results.map((m) => [m.id, m.address]));
  const renderOption = ({ option, checked }: ComboboxLikeRenderOptionInput<ComboboxItem>) => (
    <InstitutionOption name={option.label} address={addresses.get(option.value)} checked={checked} />
  );
  return { found, results, renderOption };
}
