import { Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { labelQueries } from '../../labels/labels.queries.ts';
import { prefectureName } from '../../reference-data/prefectures.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { tagQueries } from '../../tags/tags.queries.ts';
import { describeFilters, type FilterNames } from '../filter-summary.ts';
import type { InstitutionFilters } from '../search-state.ts';

/**
 * The filters in use, in words, above the result: what a printed or shared page was narrowed by. Names
 * come from the queries the filter panel already made (cached), so this adds no request of its own.
 */
export function ActiveFiltersCaption({ filters }: { filters: InstitutionFilters }) {
  const { api } = useServices();
  const departments = useQuery(referenceDataQueries.departments(api));
  const facilityGroups = useQuery(referenceDataQueries.facilityTypeGroups(api));
  const tenant = useQuery(referenceDataQueries.tenant(api));
  const phases = useQuery({ ...referenceDataQueries.phaseMasters(api), enabled: tenant.data?.enabled_phase === true });
  const tags = useQuery(tagQueries.list(api, { page: 1, per_page: 100, sort: 'asc' }));
  const labels = useQuery({ ...labelQueries.institutionLabels(api), retry: false });

  const phrases = useMemo(() => {
    const byId = <T,>(items: readonly T[] | undefined, id: (t: T) => string, name: (t: T) => string) => {
      const map = new Map((items ?? []).map((t) => [id(t), name(t)]));
      return (key: string) => map.get(key);
    };
    const names: FilterNames = {
      prefecture: prefectureName,
      area: byId(
        (labels.data ?? []).flatMap((l) => l.areas),
        (a) => a.id,
        (a) => a.name,
      ),
      facilityType: byId(
        (facilityGroups.data ?? []).flatMap((g) => g.facility_types),
        (f) => f.id,
        (f) => f.name,
      ),
      department: byId(
        departments.data,
        (d) => d.id,
        (d) => d.name,
      ),
      tag: byId(
        tags.data?.data,
        (t) => t.id,
        (t) => t.name,
      ),
      phase: byId(
        phases.data,
        (p) => p.id,
        (p) => p.name,
      ),
      label: byId(
        labels.data,
        (l) => l.id,
        (l) => l.name,
      ),
    };
    return describeFilters(filters, names);
  }, [filters, labels.data, facilityGroups.data, departments.data, tags.data, phases.data]);

  if (phrases.length === 0) return null;
  return (
    <Text size="xs" c="dimmed" data-testid="active-filters">
      絞り込み条件: {phrases.join('／')}
    </Text>
  );
}
