import { createRequire } from 'node:module';
import { statSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { japanCoastline } from './japan-coastline.vite.ts';
import { viewBounds } from './map-view.ts';

describe("the basemap: Japan's coastline cut out of world-atlas at build time", () => {
  const coastline = japanCoastline();
  const text = JSON.stringify(coastline);

  it('holds Japan only, every island of it', () => {
    expect(coastline.features.map((f) => [String(f.id), f.properties?.name])).toEqual([['392', 'Japan']]);
    const geometry = coastline.features[0]!.geometry;
    expect(geometry.type).toBe('MultiPolygon');
    // Honshu, Hokkaido, Kyushu, Shikoku, Okinawa and the small islands Natural Earth 1:10m draws.
    expect((geometry as { coordinates: unknown[] }).coordinates.length).toBeGreaterThan(50);
  });

  it('lies within Japan (no other country came along)', () => {
    const points = text.match(/-?\d+(\.\d+)?,-?\d+(\.\d+)?/g)!.map((p) => p.split(',').map(Number) as [number, number]);
    expect(points.length).toBeGreaterThan(1000);
    const lngs = points.map((p) => p[0]);
    const lats = points.map((p) => p[1]);
    // From 与那国島 (122.9°E, 24.4°N) and 沖ノ鳥島 (20.4°N) to 南鳥島 (154°E) and 宗谷岬 (45.5°N).
    expect([Math.min(...lngs), Math.max(...lngs)]).toEqual([expect.closeTo(122.9, 0), expect.closeTo(153.9, 0)]);
    expect(Math.min(...lats)).toBeGreaterThanOrEqual(20);
    expect(Math.max(...lats)).toBeLessThanOrEqual(46);
  });

  it('is a small fraction of the whole atlas the browser used to fetch and parse', () => {
    const atlas = createRequire(import.meta.url).resolve('world-atlas/countries-10m.json');
    expect(statSync(atlas).size).toBeGreaterThan(3_000_000);
    expect(text.length).toBeLessThan(150_000);
  });
});

describe('the rectangle of a view', () => {
  it("is deck.gl's Web Mercator rectangle: at zoom 0 a 512 px square is the whole world", () => {
    const b = viewBounds({ latitude: 0, longitude: 0, zoom: 0 }, 512, 512);
    expect(b.west).toBeCloseTo(-180, 6);
    expect(b.east).toBeCloseTo(180, 6);
    expect(b.north).toBeCloseTo(85.0511, 3);
    expect(b.south).toBeCloseTo(-85.0511, 3);
  });

  it('halves with each zoom level and stays centred on the view', () => {
    const view = { latitude: 34.96, longitude: 138.4, zoom: 9 };
    const b = viewBounds(view, 600, 618);
    const b2 = viewBounds({ ...view, zoom: 10 }, 600, 618);
    expect((b.east + b.west) / 2).toBeCloseTo(138.4, 6);
    expect(b.east - b.west).toBeCloseTo((600 / 512 / 2 ** 9) * 360, 6);
    expect(b2.east - b2.west).toBeCloseTo((b.east - b.west) / 2, 6);
    // Mercator: north of the centre is shorter in degrees than south of it.
    expect(b.north - 34.96).toBeLessThan(34.96 - b.south);
    expect(b.north - b.south).toBeGreaterThan(0.69);
    expect(b.north - b.south).toBeLessThan(0.71);
  });
});
