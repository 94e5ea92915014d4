import {
  Badge,
  Button,
  Collapse,
  Drawer,
  Group,
  MultiSelect,
  Select,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { ListPagination } from '../../../ui/ListPagination.tsx';
import { PrintStyle } from '../../../ui/PrintStyle.tsx';
import type { Communication, CommunicationLabel, CommunicationType } from '@renkei/contracts';
import { useEffect, useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import {
  communicationQueries,
  communicationTypeLabels,
  type CommunicationSearchInput,
} from '../communications.queries.ts';
import {
  activeFilterCount,
  clearedFilters,
  furtherFilterCount,
  effectiveConditions,
  isReversedPeriod,
  labelsForTypes,
  periodOf,
  type LabelCondition,
} from '../communications-search.ts';
import { useViewport } from '../../../frame/use-viewport.ts';
import { CommunicationCard } from './CommunicationCard.tsx';
import { CommunicationFilters } from './CommunicationFilters.tsx';
import { ExportButton } from './ExportButton.tsx';
import { EditCommunicationModal } from './EditCommunicationModal.tsx';
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
  institution_ids?: string[];
  tag_ids?: string[];
  /** Absent: either. */
  doctor_attended?: boolean;
  /** Conditions on communication labels, in the order they were added. */
  labels?: LabelCondition[];
}

/**
 * The search body of the URL's filters (one definition for the loader, the page and the CSV export).
 * With the tenant's labels, a label condition the label cannot meet (deleted since, another component
 * type's field) is left out rather than answering nothing or a 422.
 */
export function searchBodyOf(
  params: CommunicationsParams,
  labels?: readonly CommunicationLabel[],
): CommunicationSearchInput {
  const conditions = effectiveConditions(params.labels, labels);
  const period = periodOf(params);
  return {
    page: params.page,
    per_page: 20,
    sort: params.sort,
    ...(period ? { period } : {}),
    ...(params.types?.length ? { communication_types: params.types } : {}),
    ...(params.user_id ? { user_ids: [params.user_id] } : {}),
    ...(params.keyword ? { keyword: params.keyword } : {}),
    ...(params.institution_ids?.length ? { medical_institution_ids: params.institution_ids } : {}),
    ...(params.tag_ids?.length ? { tag_ids: params.tag_ids } : {}),
    ...(params.doctor_attended !== undefined ? { is_doctor_attended: params.doctor_attended } : {}),
    ...(conditions.length ? { label_filters: conditions } : {}),
  };
}

const typeOptions = Object.entries(communicationTypeLabels).map(([value, label]) => ({ value, label }));

/**
 * The timeline of communications, all of the tenant's or one institution's: filters live in the URL, so
 * a search can be shared and survives a reload. The period, types, staff, keyword and order sit above
 * the list on a wide screen, the further filters (institutions, tags, doctor attended, labels) in a
 * panel that opens under them; on a phone every filter is in a drawer behind 「絞り込み」.
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
  const labels = useQuery(communicationQueries.labels(api));
  const full = searchBodyOf(params, labels.data);
  // One institution's timeline has no institution or tag filter (its endpoint takes none).
  const { medical_institution_ids: _ids, tag_ids: _tags, ...scoped } = full;
  const body = institution ? scoped : full;
  // Both searches answer the same page shape; only their keys differ.
  const { data } = useSuspenseQuery(
    (institution
      ? communicationQueries.institutionSearch(api, institution.id, body)
      : communicationQueries.search(api, body)) as ReturnType<typeof communicationQueries.search>,
  );
  const staffs = useQuery(communicationQueries.staffs(api));
  const [keyword, setKeyword] = useState(params.keyword ?? '');
  const [logging, setLogging] = useState(false);
  const [editing, setEditing] = useState<Communication | null>(null);
  const phone = useViewport() === 'phone';
  const [filtersOpen, setFiltersOpen] = useState<boolean | null>(null);
  useEffect(() => setKeyword(params.keyword ?? ''), [params.keyword]);

  const asked = institution ? { ...params, institution_ids: undefined, tag_ids: undefined } : params;
  const count = activeFilterCount(asked, labels.data);
  const further = furtherFilterCount(asked, labels.data);
  // Open at first when the link asks further filters, so they are seen; a phone keeps its drawer shut.
  const panelOpen = filtersOpen ?? further > 0;
  const setTypes = (types: CommunicationType[]) => {
    // A label belongs to one type: its condition cannot hold on records of the other types.
    const kept = (params.labels ?? []).filter((c) =>
      labelsForTypes(labels.data ?? [], types).some((l) => l.id === c.label_id),
    );
    onParamsChange({
      types: types.length ? types : undefined,
      ...(labels.data ? { labels: kept.length ? kept : undefined } : {}),
      page: 1,
    });
  };
  const clear = () => {
    setKeyword('');
    onParamsChange(clearedFilters());
  };

  const keywordForm = (
    <form
      // On a phone the field shrinks, not the 絞り込み button beside it (its text and badge were cut at 360 px).
      style={{ flex: 1, minWidth: phone ? 0 : 200 }}
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
  );
  // A reversed period is left out of the search; both dates are marked and the message says why.
  const reversed = isReversedPeriod(params);
  const periodError = reversed && (
    <Text size="sm" c="red" role="alert">
      期間の終了日は開始日以降の日付を指定してください（期間の条件は使われていません）。
    </Text>
  );
  const basicFilters = (
    <>
      <TextInput
        type="date"
        label="期間（開始）"
        value={params.from ?? ''}
        onChange={(e) => onParamsChange({ from: e.currentTarget.value || undefined, page: 1 })}
        error={reversed}
        w={{ base: '47%', sm: 160 }}
      />
      <TextInput
        type="date"
        label="期間（終了）"
        value={params.to ?? ''}
        onChange={(e) => onParamsChange({ to: e.currentTarget.value || undefined, page: 1 })}
        error={reversed}
        w={{ base: '47%', sm: 160 }}
      />
      <MultiSelect
        label="種別"
        data={typeOptions}
        value={params.types ?? []}
        onChange={(v) => setTypes(v as CommunicationType[])}
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
    </>
  );
  const sortSelect = (
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
  );
  const furtherFilters = (
    <CommunicationFilters
      params={asked}
      onParamsChange={onParamsChange}
      labels={labels.data ?? []}
      withInstitutions={!institution}
    />
  );
  const clearButton = count > 0 && (
    <Button variant="subtle" onClick={clear}>
      条件をクリア
    </Button>
  );
  const countBadge = (n: number) =>
    n > 0 && (
      <Badge size="sm" circle aria-label={`${n}件の条件`}>
        {n}
      </Badge>
    );

  return (
    <Stack gap="md" data-communications-page>
      {/* On paper (a clinic's timeline before a visit, a week's records for a meeting): the records, each
          whole, without the buttons, comment boxes and page links; the filters stay, saying what is listed. */}
      <PrintStyle extra='[data-communications-page] .mantine-Button-root { display: none !important; } [data-testid="communication-card"] { break-inside: avoid; }' />
      <Group justify="space-between" wrap="wrap">
        <Title order={2} size="h3">
          {institution ? `${institution.name} のコミュニケーション` : 'コミュニケーション'}
        </Title>
        <Group gap="xs">
          {institution && <BackToInstitutionButton id={institution.id} />}
          <ExportButton body={institution ? { ...body, medical_institution_ids: [institution.id] } : body} />
          {/* The page's one primary action, pressed with a thumb on a phone: at least 44 px high. */}
          <Button size="md" mih={phone ? 44 : undefined} onClick={() => setLogging(true)}>
            活動を記録
          </Button>
        </Group>
      </Group>
      {/* In place, so a phone (where only this list is served) logs a contact without leaving it. */}
      <LogCommunicationModal opened={logging} onClose={() => setLogging(false)} institution={institution ?? null} />
      <EditCommunicationModal communication={editing} onClose={() => setEditing(null)} />
      {phone ? (
        <>
          <Group gap="sm" align="flex-end" wrap="nowrap">
            {keywordForm}
            <Button
              variant="default"
              size="md"
              mih={44}
              style={{ flexShrink: 0 }}
              onClick={() => setFiltersOpen(true)}
              rightSection={countBadge(count)}
            >
              絞り込み
            </Button>
          </Group>
          {clearButton && <Group justify="flex-end">{clearButton}</Group>}
          {/* Said on the page too: the drawer closed, a reversed period would be left out unseen. */}
          {!filtersOpen && periodError}
          <Drawer
            opened={filtersOpen === true}
            onClose={() => setFiltersOpen(false)}
            position="bottom"
            size="90%"
            title="絞り込み"
          >
            <Stack gap="sm">
              <Group gap="sm" align="flex-end" wrap="wrap">
                {basicFilters}
                {sortSelect}
              </Group>
              {periodError}
              {furtherFilters}
              <Group justify="space-between" mt="sm">
                {clearButton || <span />}
                <Button size="md" onClick={() => setFiltersOpen(false)}>
                  {data.meta.total_count}件を表示
                </Button>
              </Group>
            </Stack>
          </Drawer>
        </>
      ) : (
        <Stack gap="xs">
          <Group gap="sm" align="flex-end" wrap="wrap">
            {basicFilters}
            {keywordForm}
            {sortSelect}
          </Group>
          {periodError}
          <Group gap="xs">
            <Button
              variant="light"
              onClick={() => setFiltersOpen(!panelOpen)}
              aria-expanded={panelOpen}
              rightSection={countBadge(further)}
            >
              {panelOpen ? '詳細条件を閉じる' : '詳細条件'}
            </Button>
            {clearButton}
          </Group>
          <Collapse expanded={panelOpen}>{furtherFilters}</Collapse>
        </Stack>
      )}
      <Text size="sm" c="dimmed" data-testid="communication-total">
        {data.meta.total_count}件
      </Text>
      {data.data.length === 0 && data.meta.total_count > 0 ? (
        // A page past the last (an old link, records deleted meanwhile): the records are there, on page 1.
        <Stack align="center" py="xl" gap="xs" data-testid="communication-page-past-end">
          <Text c="dimmed">このページには記録がありません（全{data.meta.total_pages}ページ）。</Text>
          <Button variant="light" onClick={() => onParamsChange({ page: 1 })}>
            1ページ目へ
          </Button>
        </Stack>
      ) : data.data.length === 0 && count > 0 ? (
        // Narrowed to nothing: the next step is to widen the search, not to log a record.
        <Stack align="center" py="xl" gap="xs" data-testid="communication-empty">
          <Text c="dimmed" ta="center">
            条件に合うコミュニケーションはありません。キーワードや絞り込みの条件を変えるか、条件をクリアしてください。
          </Text>
          <Button variant="light" size="md" onClick={clear}>
            条件をクリア
          </Button>
        </Stack>
      ) : data.data.length === 0 ? (
        <Text c="dimmed" py="xl" ta="center" data-testid="communication-empty">
          まだコミュニケーションの記録がありません。「活動を記録」から訪問や電話を記録してください。
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
        data-print-hide
        value={params.page}
        totalPages={data.meta.total_pages}
        onChange={(page) => onParamsChange({ page })}
        siblings={0}
      />
    </Stack>
  );
}
