import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { decodeQuery, encodeQuery, invalidQueryKey, maxQueryArrayIndex, repairPercentEscapes } from './query-string.ts';
import { queryArray, queryBoolean, queryInt } from './zod-helpers.ts';

describe('encodeQuery', () => {
  it('repeats array keys, writes dates as ISO strings and nests with brackets', () => {
    expect(
      encodeQuery({
        tag_ids: ['a', 'b'],
        at: new Date('2024-04-01T00:00:00.000Z'),
        period: { from: '2024-04-01', to: '2025-03-31' },
      }),
    ).toBe('tag_ids=a&tag_ids=b&at=2024-04-01T00%3A00%3A00.000Z&period[from]=2024-04-01&period[to]=2025-03-31');
  });

  it('indexes arrays of objects and skips null and undefined', () => {
    expect(encodeQuery({ labels: [{ label_id: 'x', selection_ids: ['1', '2'] }], a: null, b: undefined })).toBe(
      'labels[0][label_id]=x&labels[0][selection_ids]=1&labels[0][selection_ids]=2',
    );
  });

  it('escapes Japanese text, reserved characters and spaces', () => {
    const encoded = encodeQuery({ keyword: '医療法人 さくら&会=1+2' });
    expect(encoded).not.toMatch(/[^\x20-\x7e]/);
    expect(encoded.split('&')).toHaveLength(1);
  });
});

describe('decodeQuery round trip', () => {
  const roundTrip = (value: Record<string, unknown>) => decodeQuery(encodeQuery(value as never));

  it('keeps repeated keys as arrays and single ones as strings', () => {
    expect(roundTrip({ tag_ids: ['a', 'b', 'c'], page: 2 })).toEqual({ tag_ids: ['a', 'b', 'c'], page: '2' });
    expect(roundTrip({ tag_ids: ['a'] })).toEqual({ tag_ids: 'a' });
  });

  it('round-trips dates as ISO strings', () => {
    const at = new Date('2025-01-31T15:04:05.123Z');
    expect(new Date(roundTrip({ at }).at as string).getTime()).toBe(at.getTime());
  });

  it('round-trips nested objects and arrays of objects', () => {
    const value = {
      period: { from: '2024-04-01', to: '2025-03-31' },
      labels: [
        { label_id: 'l1', selection_ids: ['s1', 's2'], text: 'ａｂｃ' },
        { label_id: 'l2', range: { min: '1', max: '9' } },
      ],
    };
    expect(roundTrip(value)).toEqual({
      period: { from: '2024-04-01', to: '2025-03-31' },
      labels: [
        { label_id: 'l1', selection_ids: ['s1', 's2'], text: 'ａｂｃ' },
        { label_id: 'l2', range: { min: '1', max: '9' } },
      ],
    });
  });

  it('round-trips unicode and reserved characters exactly', () => {
    const value = { keyword: '医療法人社団 さくら会　ｻｸﾗ & = + % # ? / 🏥', 'キー[名]': 'x' };
    expect(roundTrip({ keyword: value.keyword })).toEqual({ keyword: value.keyword });
  });

  it('keeps empty values', () => {
    expect(roundTrip({ keyword: '', tag_ids: ['', 'a'] })).toEqual({ keyword: '', tag_ids: ['', 'a'] });
    expect(decodeQuery('flag')).toEqual({ flag: '' });
    expect(decodeQuery('')).toEqual({});
    expect(decodeQuery('?a=1')).toEqual({ a: '1' });
  });

  it('round-trips booleans and numbers through the schema helpers', () => {
    const schema = z.object({ ids: queryArray(z.string()), done: queryBoolean, page: queryInt({ min: 1 }) });
    expect(schema.parse(roundTrip({ ids: ['x'], done: false, page: 3 }))).toEqual({ ids: ['x'], done: false, page: 3 });
    expect(schema.parse(roundTrip({ ids: ['x', 'y'], done: true, page: 1 }))).toEqual({
      ids: ['x', 'y'],
      done: true,
      page: 1,
    });
  });
});

describe('decodeQuery on hostile or malformed input', () => {
  it('reads + as a space and key[] as a repeated key', () => {
    expect(decodeQuery('keyword=a+b&ids[]=1&ids[]=2')).toEqual({ keyword: 'a b', ids: ['1', '2'] });
  });

  it('keeps malformed escapes as written instead of throwing', () => {
    expect(decodeQuery('keyword=100%&x=%E3%81')).toEqual({ keyword: '100%', x: '%E3%81' });
  });

  it('reads a surrogate written as UTF-8 bytes as the lone surrogate (the string rule then refuses it)', () => {
    expect(decodeQuery('keyword=ab%ED%A0%80cd&x=%E3%81%82%ED%BF%BF')).toEqual({ keyword: 'ab\ud800cd', x: 'あ\udfff' });
    expect(decodeQuery('x=%ED%A0%80%E3%81')).toEqual({ x: '%ED%A0%80%E3%81' });
  });

  it('never writes to prototypes', () => {
    const decoded = decodeQuery('__proto__[polluted]=1&a[__proto__][polluted]=1&constructor[prototype][p]=1');
    expect(decoded[invalidQueryKey]).toHaveLength(3);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
  });

  it('keeps a pair it cannot place under invalidQueryKey instead of throwing or dropping it', () => {
    expect(decodeQuery('a=1&a[b]=2')).toEqual({ a: '1', [invalidQueryKey]: ['a[b]=2'] });
    expect(decodeQuery('a[b]=1&a=2&a[0]=3')).toEqual({ a: { b: '1' }, [invalidQueryKey]: ['a=2', 'a[0]=3'] });
    expect(decodeQuery('ids=1&ids[0][x]=2')).toEqual({ ids: '1', [invalidQueryKey]: ['ids[0][x]=2'] });
    expect(decodeQuery('[x]=1&a[b=2')).toEqual({ [invalidQueryKey]: ['[x]=1', 'a[b=2'] });
  });

  it('refuses huge sparse indexes', () => {
    const big = maxQueryArrayIndex + 1;
    const decoded = decodeQuery(`a[${big}][x]=1`);
    expect(decoded).toEqual({ [invalidQueryKey]: [`a[${big}][x]=1`] });
  });
});

describe('repairPercentEscapes', () => {
  it('escapes the % of malformed and non-UTF-8 escapes and leaves valid ones alone', () => {
    expect(repairPercentEscapes('/api/tags?page=%ZZ')).toBe('/api/tags?page=%25ZZ');
    expect(repairPercentEscapes('/api/th%ZZ/x?a=%')).toBe('/api/th%25ZZ/x?a=%25');
    expect(repairPercentEscapes('/api/x?k=%E3%81')).toBe('/api/x?k=%25E3%2581');
    expect(repairPercentEscapes('/api/x?k=ab%ED%A0%80')).toBe('/api/x?k=ab%ED%A0%80');
    expect(repairPercentEscapes('/api/%ED%A0%80?k=%ED%A0%80%FF')).toBe('/api/%25ED%25A0%2580?k=%25ED%25A0%2580%25FF');
    const valid = '/api/x?keyword=%E7%97%85%E9%99%A2&a=%2F&b=%00';
    expect(repairPercentEscapes(valid)).toBe(valid);
    for (const url of ['/api/tags?page=%ZZ', '/a%E3%81?x=%FF%', '/%%%']) {
      expect(() => decodeURIComponent(repairPercentEscapes(url))).not.toThrow();
    }
    expect(decodeQuery(repairPercentEscapes('?page=%ZZ').slice(1))).toEqual(decodeQuery('page=%ZZ'));
  });
});
