import type { Feature, FeatureCollection } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
// Served from the app's own assets (hashed, cached): the map needs no tile server or other network.
import atlasUrl from 'world-atlas/countries-10m.json?url';

/** ISO 3166-1 numeric code of Japan, the id world-atlas gives its country. */
const japanId = '392';

/** Japan's coastline from Natural Earth 1:10m (world-atlas), as GeoJSON features. */
export async function japanBasemap(): Promise<Feature[]> {
  const response = await fetch(atlasUrl);
  if (!response.ok) throw new Error(`basemap ${response.status}`);
  const topology = (await response.json()) as Topology<{ countries: GeometryCollection }>;
  const countries = feature(topology, topology.objects.countries) as FeatureCollection;
  return countries.features.filter((f) => String(f.id) === japanId);
}
