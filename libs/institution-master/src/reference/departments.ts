/** One 診療科 of the shared department list. */
export interface Department {
  id: number;
  name: string;
  /** レセプト電算 診療科名コード (記録条件仕様（医科用）別表10), when the name has one. */
  receCode: string | null;
}

/**
 * Ids 1–39 are the 別表10 codes themselves (29 and 32 do not exist there). Ids from 101 are common
 * combined 標榜診療科名 (医療法施行令 第3条の2) that claims encode as a base code plus a body part,
 * so they carry no code of their own; `receCode` then names the base (内科 01 / 外科 10 …).
 */
export const departments: readonly Department[] = [
  [1, '内科', '01'],
  [2, '精神科', '02'],
  [3, '神経科', '03'],
  [4, '神経内科', '04'],
  [5, '呼吸器科', '05'],
  [6, '消化器科', '06'],
  [7, '胃腸科', '07'],
  [8, '循環器科', '08'],
  [9, '小児科', '09'],
  [10, '外科', '10'],
  [11, '整形外科', '11'],
  [12, '形成外科', '12'],
  [13, '美容外科', '13'],
  [14, '脳神経外科', '14'],
  [15, '呼吸器外科', '15'],
  [16, '心臓血管外科', '16'],
  [17, '小児外科', '17'],
  [18, '皮膚ひ尿器科', '18'],
  [19, '皮膚科', '19'],
  [20, 'ひ尿器科', '20'],
  [21, '性病科', '21'],
  [22, 'こう門科', '22'],
  [23, '産婦人科', '23'],
  [24, '産科', '24'],
  [25, '婦人科', '25'],
  [26, '眼科', '26'],
  [27, '耳鼻いんこう科', '27'],
  [28, '気管食道科', '28'],
  [30, '放射線科', '30'],
  [31, '麻酔科', '31'],
  [33, '心療内科', '33'],
  [34, 'アレルギー科', '34'],
  [35, 'リウマチ科', '35'],
  [36, 'リハビリテーション科', '36'],
  [37, '病理診断科', '37'],
  [38, '臨床検査科', '38'],
  [39, '救急科', '39'],
  [101, '呼吸器内科', '01'],
  [102, '循環器内科', '01'],
  [103, '消化器内科', '01'],
  [104, '腎臓内科', '01'],
  [105, '脳神経内科', '01'],
  [106, '糖尿病・内分泌内科', '01'],
  [107, '血液内科', '01'],
  [108, '腫瘍内科', '01'],
  [109, '総合診療科', '01'],
  [110, '消化器外科', '10'],
  [111, '乳腺外科', '10'],
  [112, '泌尿器科', '20'],
  [113, '歯科', null],
  [114, '矯正歯科', null],
  [115, '小児歯科', null],
  [116, '歯科口腔外科', null],
].map(([id, name, receCode]) => ({ id: id as number, name: name as string, receCode: receCode as string | null }));

const byName = new Map(departments.map((d) => [d.name, d]));
// Spellings found in hospital masters for the same department.
const aliases: Record<string, string> = {
  泌尿器科: '泌尿器科',
  耳鼻咽喉科: '耳鼻いんこう科',
  肛門科: 'こう門科',
  皮膚泌尿器科: '皮膚ひ尿器科',
  内分泌内科: '糖尿病・内分泌内科',
  糖尿病内科: '糖尿病・内分泌内科',
};

/** The department a name in a master file means, or undefined when it is not on the list. */
export function findDepartmentByName(name: string): Department | undefined {
  const n = name.normalize('NFKC').trim();
  return byName.get(n) ?? byName.get(aliases[n] ?? '');
}
