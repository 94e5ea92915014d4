import { describe, expect, it } from 'vitest';
import { prefectures, splitAddress } from './prefectures.ts';

describe('splitAddress', () => {
  it.each([
    ['静岡県静岡市葵区追手町9-6', '静岡県', '静岡市葵区'],
    ['静岡県榛原郡吉田町住吉87', '静岡県', '吉田町'],
    ['静岡県沼津市御幸町16-1', '静岡県', '沼津市'],
    ['東京都千代田区丸の内1-1', '東京都', '千代田区'],
    ['三重県四日市市諏訪町1-5', '三重県', '四日市市'],
    ['長野県大町市大町3887', '長野県', '大町市'],
    ['北海道札幌市中央区北1条西2丁目', '北海道', '札幌市中央区'],
  ])('%s → %s %s', (address, pref, city) => {
    const r = splitAddress(address);
    expect(r.prefecture?.name).toBe(pref);
    expect(r.city).toBe(city);
  });

  it('has the 47 prefectures with unique codes', () => {
    expect(new Set(prefectures.map((p) => p.code)).size).toBe(47);
  });

  it('returns no prefecture for an address outside Japan', () => {
    expect(splitAddress('Paris').prefecture).toBeNull();
  });
});
