import type { SegmentMapBody } from '@renkei/contracts';
import { isCalendarDay, isUuid, listParam, type SearchInput } from '../../app/search-params.ts';
import { mapViewSearch, type MapViewParams } from '../sales-map/map-view.ts';

/** The map's filters and view as the URL keeps them. */
export interface SegmentMapState extends MapViewParams {
  from?: string | undefined;
  to?: string | undefined;
  own_department_ids?: string[] | undefined;
}

const uuid = (v: unknown) => (isUuid(v) ? v : undefined);

/** Each piece of a link falls back alone; a period needs both ends in order. */
export function segmentMapSearch(search: SearchInput): SegmentMapState {
  const [from, to] = [search.from, search.to];
  const period = isCalendarDay(from) && isCalendarDay(to) && from <= to ? { from, to } : {};
  const departments = listParam(search.own_department_ids, uuid, 200);
  return { ...period, ...(departments ? { own_department_ids: departments } : {}), ...mapViewSearch(search) };
}

/** The last whole 年度 (April to March) before today: the segments are a year's figures. */
export function lastFiscalYear(today: Date): { from: string; to: string } {
  // The 年度 running today started this April, or last April before April.
  const currentStart = today.getMonth() >= 3 ? today.getFullYear() : today.getFullYear() - 1;
  return { from: `${currentStart - 1}-04-01`, to: `${currentStart}-03-31` };
}

export function periodOf(state: SegmentMapState, today: Date): { from: string; to: string } {
  return state.from && state.to ? { from: state.from, to: state.to } : lastFiscalYear(today);
}

export function toSegmentMapBody(state: SegmentMapState, today: Date): SegmentMapBody {
  return { period: periodOf(state, today), own_department_ids: state.own_department_ids ?? [] };
}
