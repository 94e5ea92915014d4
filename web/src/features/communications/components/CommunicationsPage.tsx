import { Button, Group, Modal, MultiSelect, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { ListPagination } from '../../../ui/ListPagination.tsx';
import type { Communication, CommunicationType } from '@renkei/contracts';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import {
  communicationQueries,
  communicationTypeLabels,
  type CommunicationSearchInput,
} from '../communications.queries.ts';
import { useViewport } from '../../../frame/use-viewport.ts';
import { CommunicationCard } from './CommunicationCard.tsx';
import { ExportButton } from './ExportButton.tsx';
import { LogCommunicationModal } from './LogCommunicationModal.tsx';
import { BackToInstitutionButton } from '../../medical-institutions/components/router-links.tsx';

export interface CommunicationsParams {
  page: number;
  from?: string;
  to?: string;
  types?: CommunicationType[];
  user_id?: string;
  keyword?: string;
  sort: 'asc' | 'desc';
}

/** The search body of the URL's filters (one definition for the loader and the page). */
export function searchBodyOf(params: CommunicationsParams): CommunicationSearchInput {
  return {
    page: params.page,
    per_page: 20,
    sort: params.sort,
    ...(params.from && params.to ? { period: { from: params.from, to: params.to } } : {}),
    ...(params.types?.length ? { communication_types: params.types } : {}),
    ...(params.user_id ? { user_ids: [params.user_id] } : {}),
    ...(params.keyword ? { keyword: params.keyword } : {}),
  };
}

// The edit form loads when first opened, not with the list.
const CommunicationEditForm = lazy(() =>
  import('./CommunicationEditForm.tsx').then((m) => ({ default: m.CommunicationEditForm })),
);

const typeOptions = Object.entries(communicationTypeLabels).map(([value, label]) => ({ value, label }));

/**
 * The timeline of communications, all of the tenant's or one institution's: filters live in the URL, so
 * a search can be shared and survives a reload.
 */
export function CommunicationsPage({
  params,
  onParamsChange,
  institution,
  currentUserId,
}: {
  params: CommunicationsParams;
  onParamsChange: (next: Partial<CommunicationsParams>) => void;
  institution?: { id: string; name: string };
  currentUserId: string;
}) {
  const { api } = useServices();
  const body = searchBodyOf(params);
  // Both searches answer the same page shape; only their keys differ.
  const { data } = useSuspenseQuery(
    (institution
      ? communicationQueries.institutionSearch(api, institution.id, body)
      : communicationQueries.search(api, body)) as ReturnType<typeof communicationQueries.search>,
  );
  const labels = useQuery(communicationQueries.labels(api));
  const staffs = useQuery(communicationQueries.staffs(api));
  const [keyword, setKeyword] = useState(params.keyword ?? '');
  const [logging, setLogging] = useState(false);
  const [editing, setEditing] = useState<Communication | null>(null);
  const phone = useViewport() === 'phone';
  useEffect(() => setKeyword(params.keyword ?? ''), [params.keyword]);

  return (
    <Stack gap="md">
      <Group justify="space-between" wrap="wrap">
        <Title order={2} size="h3">
          {institution ? `${institution.name} のコミュニケーション` : 'コミュニケーション'}
        </Title>
        <Group gap="xs">
          {institution && <BackToInstitutionButton id={institution.id} />}
          <ExportButton body={institution ? { ...body, medical_institution_ids: [institution.id] } : body} />
          <Button size="md" onClick={() => setLogging(true)}>
            活動を記録
          </Button>
        </Group>
      </Group>
      {/* In place, so a phone (where only this list is served) logs a contact without leaving it. */}
      <LogCommunicationModal opened={logging} onClose={() => setLogging(false)} institution={institution ?? null} />
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        fullScreen={phone}
        size="lg"
        title="活動記録の編集"
        withCloseButton
      >
        <Suspense fallback={null}>
          {editing && (
            <CommunicationEditForm
              key={editing.id}
              communication={editing}
              onSaved={() => setEditing(null)}
              onCancel={() => setEditing(null)}
            />
          )}
        </Suspense>
      </Modal>
      <Group gap="sm" align="flex-end" wrap="wrap">
        <TextInput
          type="date"
          label="期間（開始）"
          value={params.from ?? ''}
          onChange={(e) => onParamsChange({ from: e.currentTarget.value || undefined, page: 1 })}
          w={{ base: '47%', sm: 160 }}
        />
        <TextInput
          type="date"
          label="期間（終了）"
          value={params.to ?? ''}
          onChange={(e) => onParamsChange({ to: e.currentTarget.value || undefined, page: 1 })}
          w={{ base: '47%', sm: 160 }}
        />
        <MultiSelect
          label="種別"
          data={typeOptions}
          value={params.types ?? []}
          onChange={(v) => onParamsChange({ types: v as CommunicationType[], page: 1 })}
          clearable
          w={{ base: '100%', sm: 260 }}
        />
        <Select
          label="担当者"
          data={(staffs.data ?? []).map((s) => ({ value: s.id, label: s.name }))}
          value={params.user_id ?? null}
          onChange={(v) => onParamsChange({ user_id: v ?? undefined, page: 1 })}
          clearable
          searchable
          w={{ base: '100%', sm: 200 }}
        />
        <form
          style={{ flex: 1, minWidth: 200 }}
          onSubmit={(e) => {
            e.preventDefault();
            onParamsChange({ keyword: keyword.trim() || undefined, page: 1 });
          }}
        >
          <TextInput
            label="キーワード（内容・メモ）"
            value={keyword}
            onChange={(e) => setKeyword(e.currentTarget.value)}
            maxLength={100}
          />
        </form>
        <Select
          label="並び順"
          data={[
            { value: 'desc', label: '新しい順' },
            { value: 'asc', label: '古い順' },
          ]}
          value={params.sort}
          onChange={(v) => onParamsChange({ sort: v === 'asc' ? 'asc' : 'desc', page: 1 })}
          allowDeselect={false}
          w={{ base: '100%', sm: 120 }}
        />
      </Group>
      <Text size="sm" c="dimmed">
        {data.meta.total_count}件
      </Text>
      {data.data.length === 0 ? (
        <Text c="dimmed" py="xl" ta="center">
          条件に合うコミュニケーションはありません。「活動を記録」から訪問や電話を記録してください。
        </Text>
      ) : (
        <Stack gap="sm">
          {data.data.map((c) => (
            <CommunicationCard
              key={c.id}
              communication={c}
              labels={labels.data ?? []}
              currentUserId={currentUserId}
              onEdit={() => setEditing(c)}
            />
          ))}
        </Stack>
      )}
      <ListPagination
        value={params.page}
        totalPages={data.meta.total_pages}
        onChange={(page) => onParamsChange({ page })}
        siblings={0}
      />
    </Stack>
  );
}
