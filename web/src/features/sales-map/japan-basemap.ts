import type { Feature } from 'geojson';
// Extracted from world-atlas when the app is built (japan-coastline.vite.ts): the map needs no tile server or
// other network, and the browser no longer fetches and parses every country of the world to draw Japan.
import coastline from 'virtual:japan-coastline';

/** Japan's coastline from Natural Earth 1:10m (world-atlas), as GeoJSON features. */
export const japanBasemap: readonly Feature[] = coastline.features;
