import type { SalesMapSearchBody } from '@renkei/contracts';
import { enumParam, intParam, isCalendarDay, isUuid, listParam, type SearchInput } from '../../app/search-params.ts';
import { mapViewSearch, type MapViewParams } from './map-view.ts';

const visitFilters = ['all', 'first_visit', 'return_visit'] as const;
export type VisitFilterValue = (typeof visitFilters)[number];

/** The map's filters and view as the URL keeps them; the rectangle follows from the view and the screen. */
export interface SalesMapState extends MapViewParams {
  from?: string | undefined;
  to?: string | undefined;
  facility_type_ids?: string[] | undefined;
  tag_ids?: string[] | undefined;
  min_referral_count?: number | undefined;
  visit?: VisitFilterValue | undefined;
}

export interface MapBounds {
  north: number;
  south: number;
  east: number;
  west: number;
}

const masterCode = (v: unknown) => (typeof v === 'string' && /^\d{1,4}$/.test(v) ? v : undefined);
const uuid = (v: unknown) => (isUuid(v) ? v : undefined);

/** Each piece of a link falls back alone; a period needs both ends in order. */
export function salesMapSearch(search: SearchInput): SalesMapState {
  const [from, to] = [search.from, search.to];
  const period = isCalendarDay(from) && isCalendarDay(to) && from <= to ? { from, to } : {};
  const min = intParam(search.min_referral_count, 0, 1_000_000_000, -1);
  const visit = enumParam(search.visit, visitFilters, undefined);
  const facilityTypes = listParam(search.facility_type_ids, masterCode, 100);
  const tags = listParam(search.tag_ids, uuid, 100);
  return {
    ...period,
    ...(facilityTypes ? { facility_type_ids: facilityTypes } : {}),
    ...(tags ? { tag_ids: tags } : {}),
    ...(min >= 0 ? { min_referral_count: min } : {}),
    ...(visit && visit !== 'all' ? { visit } : {}),
    ...mapViewSearch(search),
  };
}

const day = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/** The twelve whole months before this one (as the demo's segments and the referral reports count). */
export function defaultPeriod(today: Date): { from: string; to: string } {
  return {
    from: day(new Date(today.getFullYear(), today.getMonth() - 12, 1)),
    to: day(new Date(today.getFullYear(), today.getMonth(), 0)),
  };
}

const salesMapPerPage = 500;

/** One period for both the referral figures and the visits (the pin's colour). */
export function toSalesMapBody(state: SalesMapState, bounds: MapBounds | undefined, today: Date): SalesMapSearchBody {
  const period = state.from && state.to ? { from: state.from, to: state.to } : defaultPeriod(today);
  return {
    referral_settings: {
      period,
      ...(state.min_referral_count !== undefined ? { min_referral_count: state.min_referral_count } : {}),
    },
    visits: { period, visit: state.visit ?? 'all' },
    ...(bounds ? { bounds } : {}),
    ...(state.facility_type_ids?.length ? { facility_type_ids: state.facility_type_ids } : {}),
    ...(state.tag_ids?.length ? { tag_ids: state.tag_ids } : {}),
    page: 1,
    per_page: salesMapPerPage,
  };
}
