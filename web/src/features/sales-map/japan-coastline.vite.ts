import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { FeatureCollection, Geometry } from 'geojson';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import type { Plugin } from 'vite';

/** ISO 3166-1 numeric code of Japan, the id world-atlas gives its country. */
const japanId = '392';

/**
 * world-atlas quantizes 1:10m to about 0.0036° by 0.0017° a step: three decimals (~0.001°, ~100 m) keep every
 * step apart and halve the text.
 */
const decimals = 3;

type Position = number[];
type Coordinates = Position | Coordinates[];

function rounded(c: Coordinates): Coordinates {
  const f = 10 ** decimals;
  return typeof c[0] === 'number'
    ? (c as Position).map((v) => Math.round(v * f) / f)
    : (c as Coordinates[]).map(rounded);
}

/**
 * Japan's coastline from Natural Earth 1:10m (world-atlas), as GeoJSON: read in Node from the package, so the
 * browser gets about 60 KB instead of every country of the world (3.6 MB to fetch and parse).
 */
export function japanCoastline(atlasPath?: string): FeatureCollection {
  const path = atlasPath ?? createRequire(import.meta.url).resolve('world-atlas/countries-10m.json');
  const topology = JSON.parse(readFileSync(path, 'utf8')) as Topology<{ countries: GeometryCollection }>;
  const japan = topology.objects.countries.geometries.filter((g) => String(g.id) === japanId);
  if (japan.length === 0) throw new Error(`world-atlas has no country ${japanId} (Japan)`);
  const collection = feature(topology, { type: 'GeometryCollection', geometries: japan }) as FeatureCollection;
  return {
    type: 'FeatureCollection',
    features: collection.features.map((f) => ({
      type: 'Feature',
      id: f.id,
      properties: f.properties,
      geometry: {
        ...f.geometry,
        coordinates: rounded((f.geometry as Geometry & { coordinates: Coordinates }).coordinates),
      } as Geometry,
    })),
  };
}

const virtualId = 'virtual:japan-coastline';
const resolvedId = `\0${virtualId}`;

/** `import coastline from 'virtual:japan-coastline'`: Japan's coastline, extracted when the app is built. */
export function japanCoastlinePlugin(): Plugin {
  return {
    name: 'renkei-japan-coastline',
    resolveId: (id) => (id === virtualId ? resolvedId : undefined),
    load(id) {
      if (id !== resolvedId) return undefined;
      // JSON.parse of a string is quicker for the browser than the same object as a literal.
      return `export default JSON.parse(${JSON.stringify(JSON.stringify(japanCoastline()))});`;
    },
  };
}
