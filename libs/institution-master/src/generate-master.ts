import fs from 'node:fs';
import { once } from 'node:events';
import iconv from 'iconv-lite';
import { buildInstitutionCode } from './institution-code.ts';
import { masterColumns, runningStatusLabels, departmentSeparator, type RunningStatus } from './master-format.ts';
import { demoMunicipalities, demoPrefectureCode, type DemoMunicipality } from './demo-region.ts';
import { prefectures } from './reference/prefectures.ts';

export interface GenerateMasterOptions {
  /** Rows to write (default 3,000; 180,000 is the national-scale benchmark file). */
  count?: number | undefined;
  seed?: number | undefined;
  /**
   * JIS code of the prefecture. The demo prefecture (22 静岡県) uses its real municipalities; with
   * `prefecture: 'all'` rows are spread over the 47 prefectures (other prefectures use their capital).
   */
  prefecture?: number | 'all' | undefined;
  encoding?: 'utf8' | 'shift_jis' | undefined;
  /** Write the header line (default true). */
  header?: boolean | undefined;
  /** UTF-8 with BOM (default false). */
  bom?: boolean | undefined;
}

/** mulberry32: tiny, fast, and the same sequence on every machine for a seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}
type Rng = ReturnType<typeof rng>;

const surnames = [
  ['佐藤', 'サトウ'],
  ['鈴木', 'スズキ'],
  ['高橋', 'タカハシ'],
  ['田中', 'タナカ'],
  ['伊藤', 'イトウ'],
  ['渡辺', 'ワタナベ'],
  ['山本', 'ヤマモト'],
  ['中村', 'ナカムラ'],
  ['小林', 'コバヤシ'],
  ['加藤', 'カトウ'],
  ['吉田', 'ヨシダ'],
  ['山田', 'ヤマダ'],
  ['佐々木', 'ササキ'],
  ['山口', 'ヤマグチ'],
  ['松本', 'マツモト'],
  ['井上', 'イノウエ'],
  ['木村', 'キムラ'],
  ['林', 'ハヤシ'],
  ['斎藤', 'サイトウ'],
  ['清水', 'シミズ'],
  ['山崎', 'ヤマザキ'],
  ['森', 'モリ'],
  ['池田', 'イケダ'],
  ['橋本', 'ハシモト'],
  ['阿部', 'アベ'],
  ['石川', 'イシカワ'],
  ['山下', 'ヤマシタ'],
  ['中島', 'ナカジマ'],
  ['石井', 'イシイ'],
  ['小川', 'オガワ'],
  ['前田', 'マエダ'],
  ['岡田', 'オカダ'],
  ['長谷川', 'ハセガワ'],
  ['藤田', 'フジタ'],
  ['後藤', 'ゴトウ'],
  ['近藤', 'コンドウ'],
  ['村上', 'ムラカミ'],
  ['遠藤', 'エンドウ'],
  ['青木', 'アオキ'],
  ['坂本', 'サカモト'],
] as const;
const givenNames = [
  '健一',
  '誠',
  '大輔',
  '直樹',
  '隆',
  '浩二',
  '美香',
  '恵子',
  '裕子',
  '智子',
  '翔太',
  '拓也',
  '陽子',
  '真理子',
  '和也',
  '修',
  '聡',
  '明美',
  '由美',
  '剛',
];
const brands = [
  ['さくら', 'サクラ'],
  ['あおば', 'アオバ'],
  ['ひかり', 'ヒカリ'],
  ['みどり', 'ミドリ'],
  ['わかば', 'ワカバ'],
  ['ひまわり', 'ヒマワリ'],
  ['あさひ', 'アサヒ'],
  ['のぞみ', 'ノゾミ'],
  ['富士見', 'フジミ'],
  ['共立', 'キョウリツ'],
  ['城北', 'ジョウホク'],
  ['港', 'ミナト'],
] as const;
const towns = [
  '本町',
  '栄町',
  '緑町',
  '旭町',
  '幸町',
  '中央',
  '宮本町',
  '東町',
  '西町',
  '南町',
  '北町',
  '新町',
  '元町',
  '駅前',
  '大手町',
  '末広町',
  '若葉町',
  '寿町',
  '日吉町',
  '松原町',
];

type Part = readonly [string, string];
interface Kind {
  facilityType: string;
  scoreTable: 1 | 3 | 4;
  share: number;
  names: ((r: Rng, place: Part) => Part)[];
  departments: (r: Rng) => string[];
  beds: (r: Rng) => number | null;
}
const sur = (r: Rng): Part => r.pick(surnames);
const brand = (r: Rng): Part => r.pick(brands);
const cat = (...parts: Part[]): Part => [parts.map((p) => p[0]).join(''), parts.map((p) => p[1]).join('')];
const lit = (kanji: string, kana: string): Part => [kanji, kana];

const hospitalDepartments = [
  '内科',
  '循環器内科',
  '消化器内科',
  '呼吸器内科',
  '腎臓内科',
  '脳神経内科',
  '糖尿病・内分泌内科',
  '外科',
  '消化器外科',
  '整形外科',
  '脳神経外科',
  '心臓血管外科',
  '呼吸器外科',
  '乳腺外科',
  '泌尿器科',
  '産婦人科',
  '小児科',
  '眼科',
  '耳鼻いんこう科',
  '皮膚科',
  '精神科',
  '放射線科',
  '麻酔科',
  'リハビリテーション科',
  '救急科',
  '病理診断科',
  '形成外科',
];
function someOf(r: Rng, items: readonly string[], min: number, max: number, first: string[] = []): string[] {
  const out = new Set(first);
  const n = r.int(min, max);
  while (out.size < Math.min(n, items.length)) out.add(r.pick(items));
  return [...out];
}
const clinicKinds: [Part, string[]][] = [
  [lit('内科クリニック', 'ナイカクリニック'), ['内科']],
  [lit('こどもクリニック', 'コドモクリニック'), ['小児科']],
  [lit('整形外科', 'セイケイゲカ'), ['整形外科', 'リハビリテーション科']],
  [lit('眼科', 'ガンカ'), ['眼科']],
  [lit('皮膚科クリニック', 'ヒフカクリニック'), ['皮膚科']],
  [lit('レディースクリニック', 'レディースクリニック'), ['産婦人科']],
  [lit('耳鼻咽喉科', 'ジビインコウカ'), ['耳鼻いんこう科']],
  [lit('医院', 'イイン'), ['内科', '小児科']],
  [lit('循環器内科', 'ジュンカンキナイカ'), ['循環器内科', '内科']],
  [lit('胃腸科内科', 'イチョウカナイカ'), ['消化器内科', '内科']],
  [lit('泌尿器科', 'ヒニョウキカ'), ['泌尿器科']],
  [lit('メンタルクリニック', 'メンタルクリニック'), ['精神科', '心療内科']],
];

const kinds: Kind[] = [
  {
    facilityType: '一般病院',
    scoreTable: 1,
    share: 0.055,
    names: [
      (r, p) => cat(p, lit('中央病院', 'チュウオウビョウイン')),
      (r, p) => cat(p, lit('総合病院', 'ソウゴウビョウイン')),
      (r) => cat(brand(r), lit('病院', 'ビョウイン')),
      (r) => cat(sur(r), lit('記念病院', 'キネンビョウイン')),
      (r) => {
        const b = brand(r);
        return cat(
          lit('医療法人社団', 'イリョウホウジンシャダン'),
          b,
          lit('会 ', 'カイ '),
          b,
          lit('病院', 'ビョウイン'),
        );
      },
    ],
    departments: (r) => someOf(r, hospitalDepartments, 4, 14, ['内科']),
    beds: (r) => r.int(50, 400),
  },
  {
    facilityType: '地域医療支援病院',
    scoreTable: 1,
    share: 0.008,
    names: [
      (r, p) => cat(p, lit('医療センター', 'イリョウセンター')),
      (r, p) => cat(p, lit('総合医療センター', 'ソウゴウイリョウセンター')),
    ],
    departments: (r) => someOf(r, hospitalDepartments, 15, 25, ['内科', '外科', '救急科']),
    beds: (r) => r.int(300, 700),
  },
  {
    facilityType: '特定機能病院',
    scoreTable: 1,
    share: 0.001,
    names: [(r, p) => cat(p, lit('医科大学附属病院', 'イカダイガクフゾクビョウイン'))],
    departments: () => [...hospitalDepartments],
    beds: (r) => r.int(600, 1000),
  },
  {
    facilityType: '療養型病院',
    scoreTable: 1,
    share: 0.012,
    names: [
      (r, p) => cat(p, lit('リハビリテーション病院', 'リハビリテーションビョウイン')),
      (r) => cat(brand(r), lit('の丘病院', 'ノオカビョウイン')),
    ],
    departments: (r) => someOf(r, ['内科', 'リハビリテーション科', '整形外科', '脳神経内科'], 2, 4, ['内科']),
    beds: (r) => r.int(40, 200),
  },
  {
    facilityType: '精神科病院',
    scoreTable: 1,
    share: 0.006,
    names: [(r, p) => cat(p, lit('こころの病院', 'ココロノビョウイン'))],
    departments: () => ['精神科', '心療内科'],
    beds: (r) => r.int(80, 300),
  },
  {
    facilityType: '有床診療所',
    scoreTable: 1,
    share: 0.04,
    names: [
      (r) => cat(sur(r), lit('産婦人科医院', 'サンフジンカイイン')),
      (r) => cat(sur(r), lit('外科胃腸科', 'ゲカイチョウカ')),
    ],
    departments: (r) => someOf(r, ['産婦人科', '外科', '消化器内科', '整形外科'], 1, 2),
    beds: (r) => r.int(1, 19),
  },
  {
    facilityType: '在宅療養支援診療所',
    scoreTable: 1,
    share: 0.04,
    names: [
      (r) => cat(brand(r), lit('在宅クリニック', 'ザイタククリニック')),
      (r) => cat(sur(r), lit('内科', 'ナイカ')),
    ],
    departments: () => ['内科'],
    beds: () => 0,
  },
  {
    facilityType: '無床診療所',
    scoreTable: 1,
    share: 0.568,
    names: [
      (r) => cat(sur(r), r.pick(clinicKinds)[0]),
      (r, p) => cat(p, lit('駅前クリニック', 'エキマエクリニック')),
      (r) => cat(brand(r), r.pick(clinicKinds)[0]),
    ],
    departments: () => [],
    beds: () => 0,
  },
  {
    facilityType: '歯科診療所',
    scoreTable: 3,
    share: 0.21,
    names: [
      (r) => cat(sur(r), lit('歯科医院', 'シカイイン')),
      (r) => cat(brand(r), lit('歯科クリニック', 'シカクリニック')),
      (r, p) => cat(p, lit('こども歯科', 'コドモシカ')),
    ],
    departments: (r) => someOf(r, ['歯科', '小児歯科', '矯正歯科', '歯科口腔外科'], 1, 3, ['歯科']),
    beds: () => 0,
  },
  {
    facilityType: '保険薬局',
    scoreTable: 4,
    share: 0.06,
    names: [(r, p) => cat(brand(r), lit('薬局 ', 'ヤッキョク '), p, lit('店', 'テン'))],
    departments: () => [],
    beds: () => null,
  },
];

interface Place {
  prefectureCode: number;
  prefectureName: string;
  municipality: DemoMunicipality;
  district: number;
}

function placesFor(prefecture: number | 'all'): { place: Place; weight: number }[] {
  const out: { place: Place; weight: number }[] = [];
  for (const p of prefectures) {
    if (prefecture !== 'all' && p.code !== prefecture) continue;
    if (p.code === demoPrefectureCode) {
      demoMunicipalities.forEach((m, i) =>
        out.push({
          place: { prefectureCode: p.code, prefectureName: p.name, municipality: m, district: i + 1 },
          weight: m.weight,
        }),
      );
    } else {
      // Outside the demo region only the prefectural capital is known by name; rows spread around it.
      const m: DemoMunicipality = {
        name: p.capital,
        gun: '',
        stem: p.capital.replace(/[市区]$/, ''),
        stemKana: '',
        lat: p.lat,
        lng: p.lng,
        weight: 1,
        areaCode: '0' + String(10 + p.code * 2).padStart(2, '0'),
        postalPrefix: String(100 + ((p.code * 19) % 900)).padStart(3, '0'),
      };
      // A prefecture's institutions are spread over 40 district numbers so codes stay within 医科's range.
      for (let d = 1; d <= 40; d++)
        out.push({
          place: { prefectureCode: p.code, prefectureName: p.name, municipality: m, district: d },
          weight: 1,
        });
    }
  }
  if (out.length === 0) throw new Error(`unknown prefecture ${prefecture}`);
  return out;
}

/** Institution numbers per 点数表: 医科 1000–2999, 歯科 3000–3999, 薬局 4000–4999, skipping xx90 and x90x. */
const numberRanges = { 1: [1000, 2999], 3: [3000, 3999], 4: [4000, 4999] } as const;
const skipped = (n: number) => n % 100 === 90 || Math.floor(n / 10) % 100 === 90;

/**
 * Writes a deterministic, seeded master file in the documented format (see `masterColumns`): the same
 * options always give the same bytes. Written in chunks, so 180,000 rows need no more memory than 3,000.
 */
export async function generateInstitutionMaster(
  outPath: string,
  options: GenerateMasterOptions = {},
): Promise<{ rows: number }> {
  const count = options.count ?? 3000;
  const r = rng(options.seed ?? 20240401);
  const places = placesFor(options.prefecture ?? demoPrefectureCode);
  const totalWeight = places.reduce((s, p) => s + p.weight, 0);
  const cumulative: number[] = [];
  places.reduce((s, p, i) => (cumulative[i] = s + p.weight), 0);
  const pickPlace = () => {
    const x = r.next() * totalWeight;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > x) hi = mid;
      else lo = mid + 1;
    }
    return places[lo]!.place;
  };
  const kindCumulative: number[] = [];
  kinds.reduce((s, k, i) => (kindCumulative[i] = s + k.share), 0);
  const pickKind = () => {
    const x = r.next() * kindCumulative[kindCumulative.length - 1]!;
    return kinds[kindCumulative.findIndex((c) => c > x)] ?? kinds[kinds.length - 1]!;
  };
  const nextNumber = new Map<string, number>();
  const allocateCode = (place: Place, table: 1 | 3 | 4): string => {
    let district = place.district;
    for (;;) {
      const key = `${place.prefectureCode}/${table}/${district}`;
      let n = nextNumber.get(key) ?? numberRanges[table][0];
      while (skipped(n)) n++;
      if (n <= numberRanges[table][1]) {
        nextNumber.set(key, n + 1);
        return buildInstitutionCode({
          prefectureCode: place.prefectureCode,
          scoreTable: table,
          districtNumber: district,
          institutionNumber: n,
        });
      }
      // A district is full: continue in an overflow district number (as 厚生局 do for new areas).
      district = district < 50 ? district + 50 : district + 1;
      if (district > 99) throw new Error('too many institutions for one prefecture');
    }
  };

  const encoding = options.encoding ?? 'utf8';
  const out = fs.createWriteStream(outPath);
  const write = async (text: string) => {
    const bytes = encoding === 'utf8' ? Buffer.from(text, 'utf8') : iconv.encode(text, 'cp932');
    if (!out.write(bytes)) await once(out, 'drain');
  };
  if (encoding === 'utf8' && options.bom) await write('\ufeff');
  if (options.header ?? true) await write(masterColumns.map((c) => c.header).join(',') + '\r\n');

  const namesByMunicipality = new Map<string, Set<string>>();
  let chunk: string[] = [];
  for (let i = 0; i < count; i++) {
    const place = pickPlace();
    const m = place.municipality;
    const kind = pickKind();
    const placePart: Part = m.stemKana ? [m.stem, m.stemKana] : lit(m.stem, '');
    const nameWith = (rr: Rng): [string, string, string[]] => {
      const [n, k] = rr.pick(kind.names)(rr, placePart);
      if (kind.facilityType !== '無床診療所') return [n, k, kind.departments(rr)];
      const ck = rr.pick(clinicKinds);
      const base = rr.chance(0.5) ? sur(rr) : brand(rr);
      return [...cat(base, ck[0]), ck[1]];
    };
    let [name, kana, departments] = nameWith(r);
    const beds = kind.beds(r);
    const lat = m.lat + (r.next() - 0.5) * (m.stemKana ? 0.06 : 0.5);
    const lng = m.lng + (r.next() - 0.5) * (m.stemKana ? 0.06 : 0.5);
    const address = `${place.prefectureName}${m.gun}${m.name}${r.pick(towns)}${r.int(1, 5)}丁目${r.int(1, 30)}-${r.int(1, 20)}`;
    const postal = `${m.postalPrefix}-${String(r.int(0, 9999)).padStart(4, '0')}`;
    const shortArea = m.areaCode.length === 3;
    const tel = `${m.areaCode}-${r.int(shortArea ? 200 : 20, shortArea ? 999 : 99)}-${String(r.int(0, 9999)).padStart(4, '0')}`;
    let founder = name.startsWith('医療法人')
      ? name.split(' ')[0]!
      : kind.scoreTable === 1 && beds !== null && beds >= 300
        ? `${place.prefectureName}`
        : r.chance(0.5)
          ? `医療法人${brand(r)[0]}会`
          : '個人';
    // Two institutions of one name in one town read as a data error to a user: another name is drawn
    // from a stream of the row's own, after everything the first name decided, so the main stream — and
    // every later row, code and demo referrer — stays as it was.
    const namesHere = namesByMunicipality.get(m.name) ?? new Set<string>();
    namesByMunicipality.set(m.name, namesHere);
    for (let attempt = 1; namesHere.has(name) && attempt <= 30; attempt++) {
      [name, kana, departments] = nameWith(rng((options.seed ?? 20240401) + i * 31 + attempt));
      if (name.startsWith('医療法人')) founder = name.split(' ')[0]!;
    }
    namesHere.add(name);
    const administrator = `${sur(r)[0]} ${r.pick(givenNames)}`;
    const statusRoll = r.next();
    const status: RunningStatus =
      statusRoll < 0.95 ? 'open' : statusRoll < 0.97 ? 'suspended' : statusRoll < 0.99 ? 'closed' : 'unknown';
    const row = [
      allocateCode(place, kind.scoreTable),
      name,
      kana,
      postal,
      address,
      tel,
      founder,
      administrator,
      kind.facilityType,
      beds === null ? '' : String(beds),
      departments.join(departmentSeparator),
      lat.toFixed(5),
      lng.toFixed(5),
      runningStatusLabels[status],
    ];
    chunk.push(row.map(csvCell).join(','));
    if (chunk.length >= 1000) {
      await write(chunk.join('\r\n') + '\r\n');
      chunk = [];
    }
  }
  if (chunk.length > 0) await write(chunk.join('\r\n') + '\r\n');
  out.end();
  await once(out, 'finish');
  return { rows: count };
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
