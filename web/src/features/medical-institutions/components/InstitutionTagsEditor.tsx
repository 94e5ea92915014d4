import { Badge, Button, Group, MultiSelect, Stack, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import type { TagRef } from '@renkei/contracts';
import { useState } from 'react';
import { fieldErrorsOf, isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { tagQueries } from '../../tags/tags.queries.ts';
import { useUpdateInstitutionTags } from '../medical-institutions.queries.ts';

export function InstitutionTagsEditor({
  institutionId,
  tags,
  onError,
}: {
  institutionId: string;
  tags: TagRef[];
  onError: (e: unknown) => void;
}) {
  const { api } = useServices();
  const [draft, setDraft] = useState<string[] | null>(null);
  const [error, setError] = useState<string | undefined>();
  const all = useQuery({ ...tagQueries.list(api, { page: 1, per_page: 100, sort: 'asc' }), enabled: draft !== null });
  const update = useUpdateInstitutionTags(institutionId);

  const save = async () => {
    if (!draft) return;
    setError(undefined);
    try {
      await update.mutateAsync(draft);
      setDraft(null);
      toast.success('タグを保存しました');
    } catch (e) {
      if (isApiError(e) && e.status === 422) setError(fieldErrorsOf(e).tag_ids ?? e.message);
      else onError(e);
    }
  };

  // Tags already on the institution stay selectable even when they are beyond the first page of tags.
  const data = [...(all.data?.data ?? []).map((t) => ({ value: t.id, label: t.name }))];
  for (const t of tags) if (!data.some((d) => d.value === t.id)) data.push({ value: t.id, label: t.name });

  if (draft === null) {
    return (
      <Group gap={6} data-testid="institution-tags">
        <Text size="sm" fw={500}>
          タグ
        </Text>
        {tags.length === 0 && (
          <Text size="sm" c="dimmed">
            なし
          </Text>
        )}
        {tags.map((t) => (
          <Badge key={t.id} variant="outline">
            {t.name}
          </Badge>
        ))}
        <Button
          size="compact-xs"
          variant="subtle"
          onClick={() => setDraft(tags.map((t) => t.id))}
          data-testid="edit-tags"
        >
          タグを編集
        </Button>
      </Group>
    );
  }
  return (
    <Stack gap={6}>
      <MultiSelect
        label="タグ"
        data={data}
        value={draft}
        onChange={setDraft}
        searchable
        clearable
        error={error}
        data-testid="tags-input"
      />
      <Group gap="xs">
        <Button size="xs" variant="default" onClick={() => setDraft(null)}>
          キャンセル
        </Button>
        <Button size="xs" loading={update.isPending} onClick={() => void save()} data-testid="save-tags">
          保存
        </Button>
      </Group>
    </Stack>
  );
}
