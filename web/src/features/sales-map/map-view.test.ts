import { describe, expect, it } from 'vitest';
import { mapViewOf, mapViewParamsOf, mapViewSearch, pickMapView, withoutMapView } from './map-view.ts';
import { salesMapSearch } from './sales-map-state.ts';
import { segmentMapSearch } from '../segment-map/segment-map-state.ts';

describe('map view in the address', () => {
  it('reads a centre and zoom, from numbers or the strings a hand-written link carries', () => {
    expect(mapViewSearch({ lat: 34.9756, lng: '138.3828', zoom: '11.25' })).toEqual({
      lat: 34.9756,
      lng: 138.3828,
      zoom: 11.25,
    });
  });

  it('drops the view when a piece is missing or out of range', () => {
    expect(mapViewSearch({ lat: 34.9, lng: 138.4 })).toEqual({});
    expect(mapViewSearch({ lat: 91, lng: 138.4, zoom: 9 })).toEqual({});
    expect(mapViewSearch({ lat: 34.9, lng: -181, zoom: 9 })).toEqual({});
    expect(mapViewSearch({ lat: 34.9, lng: 138.4, zoom: 21 })).toEqual({});
    expect(mapViewSearch({ lat: 'x', lng: 138.4, zoom: 9 })).toEqual({});
    expect(mapViewSearch({ lat: '', lng: 138.4, zoom: 9 })).toEqual({});
  });

  it('rounds a settled view to what the address keeps, and reads it back as a view', () => {
    const params = mapViewParamsOf({ latitude: 34.975612345, longitude: 138.382849999, zoom: 9.87654 });
    expect(params).toEqual({ lat: 34.9756, lng: 138.3828, zoom: 9.88 });
    expect(mapViewOf(params)).toEqual({ latitude: 34.9756, longitude: 138.3828, zoom: 9.88 });
    expect(mapViewOf({ lat: 34.9, lng: 138.4 })).toBeUndefined();
  });

  it('separates the view from the filters', () => {
    const state = { min_referral_count: 3, lat: 35, lng: 139, zoom: 8 };
    expect(withoutMapView(state)).toEqual({ min_referral_count: 3 });
    expect(pickMapView(state)).toEqual({ lat: 35, lng: 139, zoom: 8 });
    expect(pickMapView(withoutMapView(state))).toEqual({});
  });

  it('is part of both maps’ addresses', () => {
    expect(salesMapSearch({ min_referral_count: '2', lat: 35, lng: 139, zoom: 8 })).toEqual({
      min_referral_count: 2,
      lat: 35,
      lng: 139,
      zoom: 8,
    });
    expect(segmentMapSearch({ lat: 35, lng: 139, zoom: 8, from: '2025-04-01', to: '2026-03-31' })).toEqual({
      from: '2025-04-01',
      to: '2026-03-31',
      lat: 35,
      lng: 139,
      zoom: 8,
    });
  });
});
