export interface Prefecture {
  /** JIS X 0401 */
  code: number;
  name: string;
  /** 県庁所在地 (prefectural office city) */
  capital: string;
  lat: number;
  lng: number;
}

/** 47 都道府県 with their prefectural-office coordinates (domain-research §2.7, rounded). */
export const prefectures: readonly Prefecture[] = (
  [
    [1, '北海道', '札幌市', 43.064, 141.347],
    [2, '青森県', '青森市', 40.824, 140.74],
    [3, '岩手県', '盛岡市', 39.704, 141.153],
    [4, '宮城県', '仙台市', 38.269, 140.872],
    [5, '秋田県', '秋田市', 39.718, 140.103],
    [6, '山形県', '山形市', 38.24, 140.363],
    [7, '福島県', '福島市', 37.75, 140.467],
    [8, '茨城県', '水戸市', 36.342, 140.447],
    [9, '栃木県', '宇都宮市', 36.566, 139.884],
    [10, '群馬県', '前橋市', 36.391, 139.061],
    [11, '埼玉県', 'さいたま市', 35.858, 139.648],
    [12, '千葉県', '千葉市', 35.605, 140.123],
    [13, '東京都', '新宿区', 35.689, 139.692],
    [14, '神奈川県', '横浜市', 35.448, 139.642],
    [15, '新潟県', '新潟市', 37.902, 139.023],
    [16, '富山県', '富山市', 36.695, 137.211],
    [17, '石川県', '金沢市', 36.595, 136.626],
    [18, '福井県', '福井市', 36.065, 136.222],
    [19, '山梨県', '甲府市', 35.665, 138.569],
    [20, '長野県', '長野市', 36.651, 138.181],
    [21, '岐阜県', '岐阜市', 35.391, 136.722],
    [22, '静岡県', '静岡市', 34.977, 138.383],
    [23, '愛知県', '名古屋市', 35.18, 136.907],
    [24, '三重県', '津市', 34.731, 136.509],
    [25, '滋賀県', '大津市', 35.005, 135.869],
    [26, '京都府', '京都市', 35.021, 135.753],
    [27, '大阪府', '大阪市', 34.687, 135.519],
    [28, '兵庫県', '神戸市', 34.691, 135.183],
    [29, '奈良県', '奈良市', 34.685, 135.833],
    [30, '和歌山県', '和歌山市', 34.225, 135.168],
    [31, '鳥取県', '鳥取市', 35.504, 134.238],
    [32, '島根県', '松江市', 35.472, 133.051],
    [33, '岡山県', '岡山市', 34.661, 133.934],
    [34, '広島県', '広島市', 34.396, 132.46],
    [35, '山口県', '山口市', 34.186, 131.471],
    [36, '徳島県', '徳島市', 34.066, 134.559],
    [37, '香川県', '高松市', 34.34, 134.043],
    [38, '愛媛県', '松山市', 33.842, 132.766],
    [39, '高知県', '高知市', 33.56, 133.531],
    [40, '福岡県', '福岡市', 33.607, 130.418],
    [41, '佐賀県', '佐賀市', 33.249, 130.299],
    [42, '長崎県', '長崎市', 32.745, 129.873],
    [43, '熊本県', '熊本市', 32.79, 130.742],
    [44, '大分県', '大分市', 33.238, 131.613],
    [45, '宮崎県', '宮崎市', 31.911, 131.424],
    [46, '鹿児島県', '鹿児島市', 31.56, 130.558],
    [47, '沖縄県', '那覇市', 26.212, 127.681],
  ] as const
).map(([code, name, capital, lat, lng]) => ({ code, name, capital, lat, lng }));

/** 政令指定都市: their addresses continue with a ward (区), which belongs to the city part. */
const designatedCities = [
  '札幌市',
  '仙台市',
  'さいたま市',
  '千葉市',
  '横浜市',
  '川崎市',
  '相模原市',
  '新潟市',
  '静岡市',
  '浜松市',
  '名古屋市',
  '京都市',
  '大阪市',
  '堺市',
  '神戸市',
  '岡山市',
  '広島市',
  '北九州市',
  '福岡市',
  '熊本市',
];
// City names that contain 市 before their final 市 (a lazy match would cut them short).
const citiesWithInnerShi = ['四日市市', '廿日市市', '野々市市'];

/**
 * Splits an address into prefecture and 市区町村 (「静岡県静岡市葵区追手町…」 → 静岡県, 静岡市葵区;
 * 「静岡県榛原郡吉田町…」 → 静岡県, 吉田町). There is no official mapping to lean on, so this follows the
 * shape of Japanese addresses; `city` is null when it cannot be told.
 */
export function splitAddress(address: string): { prefecture: Prefecture | null; city: string | null; rest: string } {
  const a = address.normalize('NFKC').replace(/\s/g, '');
  const prefecture = prefectures.find((p) => a.startsWith(p.name)) ?? null;
  const afterPref = prefecture ? a.slice(prefecture.name.length) : a;
  const designated = designatedCities.find((c) => afterPref.startsWith(c));
  let city: string | null = null;
  if (designated) {
    const ward = /^[^区市町村\d]{1,5}区/.exec(afterPref.slice(designated.length));
    city = designated + (ward?.[0] ?? '');
    return { prefecture, city, rest: afterPref.slice(city.length) };
  }
  const gun = /^[^市区町村\d]{1,6}郡([^市区町村\d]{1,6}[町村])/.exec(afterPref);
  if (gun) return { prefecture, city: gun[1]!, rest: afterPref.slice(gun[0].length) };
  const inner = citiesWithInnerShi.find((c) => afterPref.startsWith(c));
  city = inner ?? (/^[^\d市区]{1,6}市/.exec(afterPref) ?? /^[^\d]{1,6}?[区町村]/.exec(afterPref))?.[0] ?? null;
  return { prefecture, city, rest: afterPref.slice(city?.length ?? 0) };
}
