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

/** The rectangle a map searches: its edges in degrees. */
export interface ViewBounds {
  north: number;
  south: number;
  east: number;
  west: number;
}

/** deck.gl's Web Mercator: the world is 512 px wide at zoom 0. */
const tileSize = 512;

const clamp = (v: number, limit: number) => Math.max(-limit, Math.min(limit, v));

/**
 * The rectangle a north-up map of `width` × `height` px shows around a view (Web Mercator, as deck.gl draws
 * it). Computed from the view the address keeps, not read from the canvas: the page can search before the
 * map's code has loaded, and a reload of the same address searches exactly the same rectangle.
 */
export function viewBounds(view: MapView, width: number, height: number): ViewBounds {
  const world = tileSize * 2 ** view.zoom;
  const x = ((view.longitude + 180) / 360) * world;
  const sin = Math.sin((clamp(view.latitude, 85.0511) * Math.PI) / 180);
  const y = (0.5 - Math.log((1 + sin) / (1 - sin)) / (4 * Math.PI)) * world;
  const lng = (px: number) => (px / world) * 360 - 180;
  const lat = (py: number) => (Math.atan(Math.sinh(Math.PI * (1 - (2 * py) / world))) * 180) / Math.PI;
  return {
    north: clamp(lat(y - height / 2), 90),
    south: clamp(lat(y + height / 2), 90),
    east: clamp(lng(x + width / 2), 180),
    west: clamp(lng(x - width / 2), 180),
  };
}
