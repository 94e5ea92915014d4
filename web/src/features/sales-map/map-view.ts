import type { SearchInput } from '../../app/search-params.ts';

/**
 * A map's centre and zoom as the address keeps them (`lat`, `lng`, `zoom`), so a reload or a shared link
 * opens the same view. Rounded: 4 decimals of a degree are about 10 m, finer than a pin.
 */
export interface MapViewParams {
  lat?: number | undefined;
  lng?: number | undefined;
  zoom?: number | undefined;
}

/** What deck.gl's view state needs of it. */
export interface MapView {
  latitude: number;
  longitude: number;
  zoom: number;
}

const minZoom = 0;
const maxZoom = 20;

function numberParam(value: unknown, min: number, max: number): number | undefined {
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  return Number.isFinite(n) && n >= min && n <= max ? n : undefined;
}

/** All three pieces or none: a centre without a zoom (or the reverse) is no view. */
export function mapViewSearch(search: SearchInput): MapViewParams {
  const lat = numberParam(search.lat, -90, 90);
  const lng = numberParam(search.lng, -180, 180);
  const zoom = numberParam(search.zoom, minZoom, maxZoom);
  return lat !== undefined && lng !== undefined && zoom !== undefined ? { lat, lng, zoom } : {};
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

/** The address's pieces of a view the map settled on. */
export function mapViewParamsOf(view: MapView): Required<MapViewParams> {
  return { lat: round(view.latitude, 4), lng: round(view.longitude, 4), zoom: round(view.zoom, 2) };
}

/** The view the address names, if it names one. */
export function mapViewOf(params: MapViewParams): MapView | undefined {
  const { lat, lng, zoom } = params;
  return lat !== undefined && lng !== undefined && zoom !== undefined
    ? { latitude: lat, longitude: lng, zoom }
    : undefined;
}

/** The view's pieces of a page's search, to carry them over when its filters change. */
export function pickMapView(params: object): MapViewParams {
  return mapViewSearch(params as SearchInput);
}

/** A page's search without the view: its filters (which the view's changes must not reset). */
export function withoutMapView<T extends MapViewParams>(state: T): Omit<T, keyof MapViewParams> {
  const { lat: _lat, lng: _lng, zoom: _zoom, ...rest } = state;
  return rest;
}
