import {
  Alert,
  Badge,
  Box,
  Button,
  Drawer,
  Grid,
  Group,
  Loader,
  Pagination,
  Paper,
  Select,
  Stack,
  Text,
  Title,
} from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { useQuery } from '@tanstack/react-query';
import type { MedicalInstitutionSortKey } from '@renkei/contracts';
import { useCallback, useMemo } from 'react';
import { isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { useViewport } from '../../../frame/use-viewport.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { institutionQueries } from '../medical-institutions.queries.ts';
import {
  activeFilterCount,
  defaultColumns,
  emptySearchState,
  filtersOf,
  perPageChoices,
  phoneSortChoices,
  referralFigures,
  referralSpanLabels,
  referralSpans,
  toSearchBody,
  type InstitutionFilters,
  type InstitutionSearchState,
} from '../search-state.ts';
import { ActiveFiltersCaption } from './ActiveFiltersCaption.tsx';
import { ColumnChooser } from './ColumnChooser.tsx';
import { ExportMenu } from './ExportMenu.tsx';
import { InstitutionCardList } from './InstitutionCardList.tsx';
import { InstitutionTable } from './InstitutionTable.tsx';
import { SearchFilterPanel } from './SearchFilterPanel.tsx';
import { AddToActionListButton } from '../../action-lists/components/AddToActionListButton.tsx';

export interface MedicalInstitutionsSearchPageProps {
  state: InstitutionSearchState;
  /** Replaces the whole state (kept in the URL by the route). */
  onStateChange: (next: InstitutionSearchState) => void;
}

const slashed = (day: string) => day.replaceAll('-', '/');

export function MedicalInstitutionsSearchPage({ state, onStateChange }: MedicalInstitutionsSearchPageProps) {
  const { api } = useServices();
  const isPhone = useViewport() === 'phone';
  const [drawerOpened, drawer] = useDisclosure(false);
  const body = useMemo(() => toSearchBody(state), [state]);
  const result = useQuery(institutionQueries.search(api, body));
  const tenant = useQuery(referenceDataQueries.tenant(api));
  const phaseEnabled = tenant.data?.enabled_phase === true;
  const chosen = state.columns ?? defaultColumns;
  const columns = useMemo(() => (phaseEnabled ? chosen : chosen.filter((c) => c !== 'phase')), [chosen, phaseEnabled]);
  const filters = useMemo(() => filtersOf(state), [state]);
  const filterCount = activeFilterCount(state);
  // A referral range filters on the span's figures, so the span and its periods show with it.
  const filtersReferrals = referralFigures.some(
    (f) => state[`min_${f}`] !== undefined || state[`max_${f}`] !== undefined,
  );
  const showsReferrals =
    filtersReferrals ||
    columns.some((c) => c === 'referral_count' || c === 'comparison_referral_count' || c === 'rate_of_referral_change');

  const applyFilters = useCallback(
    (next: InstitutionFilters) => {
      drawer.close();
      onStateChange({
        ...emptySearchState,
        ...next,
        sort_by: state.sort_by,
        sort: state.sort,
        per_page: state.per_page,
        columns: state.columns,
        page: 1,
      });
    },
    [drawer, onStateChange, state.sort_by, state.sort, state.per_page, state.columns],
  );
  const clearFilters = useCallback(() => applyFilters({}), [applyFilters]);
  const onSort = useCallback(
    (sort_by: MedicalInstitutionSortKey, sort: 'asc' | 'desc') => onStateChange({ ...state, sort_by, sort, page: 1 }),
    [onStateChange, state],
  );

  const panel = <SearchFilterPanel filters={filters} onApply={applyFilters} onClear={clearFilters} />;
  const data = result.data;

  const results = (
    <Stack gap="sm">
      <Group justify="space-between" gap="xs">
        <Group gap="xs">
          {isPhone && (
            <Button variant="light" size="xs" onClick={drawer.open} data-testid="open-filter">
              絞り込み
              {filterCount > 0 && (
                <Badge ml={6} size="xs" circle>
                  {filterCount}
                </Badge>
              )}
            </Button>
          )}
          <Text size="sm" c="dimmed" data-testid="institution-total">
            {data ? `全${data.meta.total_count.toLocaleString('ja-JP')}件` : ''}
          </Text>
          {result.isFetching && <Loader size="xs" />}
        </Group>
        <Group gap="xs">
          {!isPhone && (
            <ColumnChooser
              value={columns}
              phaseEnabled={phaseEnabled}
              onChange={(c) => onStateChange({ ...state, columns: c })}
            />
          )}
          {!isPhone && showsReferrals && (
            <Select
              size="xs"
              w={120}
              aria-label="紹介数の期間"
              data={referralSpans.map((v) => ({ value: v, label: `紹介数: ${referralSpanLabels[v]}` }))}
              value={state.referral_span ?? 'fiscal_year'}
              onChange={(v) =>
                v &&
                onStateChange({
                  ...state,
                  referral_span: v === 'fiscal_year' ? undefined : (v as InstitutionSearchState['referral_span']),
                  page: 1,
                })
              }
              allowDeselect={false}
            />
          )}
          {!isPhone && <ExportMenu state={state} columns={columns} />}
          {isPhone && (
            <Select
              size="xs"
              w={150}
              aria-label="並び順"
              placeholder="並び順"
              data={phoneSortChoices.map((c) => ({ value: `${c.sort_by}:${c.sort}`, label: c.label }))}
              // An order set on a desk (another column) is none of these: the field then reads 並び順.
              value={
                phoneSortChoices.some((c) => c.sort_by === state.sort_by && c.sort === state.sort)
                  ? `${state.sort_by}:${state.sort}`
                  : null
              }
              onChange={(v) => {
                const choice = phoneSortChoices.find((c) => `${c.sort_by}:${c.sort}` === v);
                if (choice) onSort(choice.sort_by, choice.sort);
              }}
              allowDeselect={false}
              data-testid="phone-sort"
            />
          )}
          <AddToActionListButton institutionIds={data?.data.map((r) => r.id) ?? []} />
          <Select
            size="xs"
            w={100}
            aria-label="表示件数"
            data={perPageChoices.map((n) => ({ value: String(n), label: `${n}件` }))}
            value={String(state.per_page)}
            onChange={(v) => v && onStateChange({ ...state, per_page: Number(v), page: 1 })}
            allowDeselect={false}
          />
        </Group>
      </Group>
      {!isPhone && showsReferrals && (
        <Text size="xs" c="dimmed" data-testid="referral-periods">
          紹介数は {slashed(body.referral_period.from)}〜{slashed(body.referral_period.to)}、比較期間は{' '}
          {slashed(body.comparison_referral_period.from)}〜{slashed(body.comparison_referral_period.to)}
          （前年同期）の件数です。
        </Text>
      )}
      <ActiveFiltersCaption filters={filters} />
      {result.isError ? (
        <Alert color="red" title="検索できませんでした">
          {isApiError(result.error) && result.error.status === 422
            ? `検索条件に誤りがあります: ${result.error.errors.map((e) => e.message).join('、') || result.error.message}`
            : '時間をおいてもう一度お試しください。'}
        </Alert>
      ) : !data ? (
        <Group justify="center" p="xl">
          <Loader />
        </Group>
      ) : data.data.length === 0 ? (
        <Paper withBorder p="xl" data-testid="institution-empty">
          <Stack gap="xs" align="center">
            <Text fw={600}>条件に一致する医療機関はありません</Text>
            <Text size="sm" c="dimmed" ta="center">
              キーワードを短くするか、絞り込み条件を減らしてもう一度検索してください。カナや半角文字でも検索できます。
            </Text>
            {filterCount > 0 && (
              <Button variant="light" size="xs" onClick={clearFilters}>
                条件をクリア
              </Button>
            )}
          </Stack>
        </Paper>
      ) : isPhone ? (
        <InstitutionCardList rows={data.data} referralSpan={referralSpanLabels[state.referral_span ?? 'fiscal_year']} />
      ) : (
        <InstitutionTable
          rows={data.data}
          columns={columns}
          sortBy={state.sort_by}
          sort={state.sort}
          onSort={onSort}
          busy={result.isPlaceholderData}
        />
      )}
      {data && data.meta.total_pages > 1 && (
        <Group justify="center">
          <Pagination
            size={isPhone ? 'sm' : 'md'}
            total={data.meta.total_pages}
            value={state.page}
            onChange={(page) => onStateChange({ ...state, page })}
            aria-label="ページ"
          />
        </Group>
      )}
    </Stack>
  );

  return (
    <Stack gap="md">
      <Title order={2} fz="xl">
        連携先管理
      </Title>
      {isPhone && (
        <Drawer
          opened={drawerOpened}
          onClose={drawer.close}
          title="絞り込み"
          position="right"
          size="100%"
          transitionProps={{ duration: 250 }}
        >
          {panel}
        </Drawer>
      )}
      {/* The results keep their place in the tree on a phone and a desk alike: a viewport that narrows for a
          moment (a tablet turned, a full-page screenshot) must not remount them and close an open dialog. */}
      <Grid gap="md">
        {!isPhone && (
          <Grid.Col span={{ base: 12, md: 4, lg: 3 }}>
            <Paper withBorder p="sm">
              {panel}
            </Paper>
          </Grid.Col>
        )}
        <Grid.Col span={isPhone ? 12 : { base: 12, md: 8, lg: 9 }}>
          <Box>{results}</Box>
        </Grid.Col>
      </Grid>
    </Stack>
  );
}
