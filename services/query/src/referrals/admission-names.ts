import { departments, mdcs } from '@renkei/institution-master';

/**
 * 様式1 A000040 診療科コード (3 digits), also the 診療科区分 of D and EF files, as listed in
 * domain research §2.3(c). The list is a legacy one: no primary source for the current fiscal year was
 * in reach, and one other list reads 020 as 小児科 (this one has 小児科 at 100). It names a code for the
 * screen only; the code itself is what the read model keeps, and it is shown beside the name.
 */
const dpcDepartmentNames: ReadonlyMap<string, string> = new Map(
  (
    [
      ['010', '内科'],
      ['020', '心療内科'],
      ['030', '精神科'],
      ['040', '神経科'],
      ['050', '呼吸器科'],
      ['060', '消化器科'],
      ['070', '循環器科'],
      ['080', 'アレルギー科'],
      ['090', 'リウマチ科'],
      ['100', '小児科'],
      ['110', '外科'],
      ['120', '整形外科'],
      ['130', '形成外科'],
      ['140', '美容外科'],
      ['150', '脳神経外科'],
      ['160', '呼吸器外科'],
      ['170', '心臓血管外科'],
      ['180', '小児外科'],
      ['190', '皮膚泌尿器科'],
      ['200', '性病科'],
      ['210', '肛門科'],
      ['220', '産婦人科'],
      ['230', '眼科'],
      ['240', '耳鼻咽喉科'],
      ['250', '気管食道科'],
      ['260', 'リハビリテーション科'],
      ['270', '放射線科'],
      ['280', '神経内科'],
      ['290', '胃腸科'],
      ['300', '皮膚科'],
      ['310', '泌尿器科'],
      ['320', '産科'],
      ['330', '婦人科'],
      ['340', '呼吸器内科'],
      ['350', '循環器内科'],
      ['360', '歯科'],
      ['370', '歯科矯正科'],
      ['380', '小児歯科'],
      ['390', '歯科口腔外科'],
      ['400', '糖尿病科'],
      ['410', '腎臓内科'],
      ['420', '腎移植科'],
      ['430', '血液透析科'],
      ['440', '代謝内科'],
      ['450', '内分泌内科'],
      ['460', '救急医学科'],
      ['470', '血液科'],
      ['480', '血液内科'],
      ['490', '麻酔科'],
      ['500', '消化器内科'],
      ['510', '消化器外科'],
      ['520', '肝胆膵外科'],
      ['530', '糖尿内科'],
      ['540', '大腸肛門科'],
      ['550', '眼形成眼窩外科'],
      ['560', '不妊内分泌科'],
      ['570', '膠原病リウマチ内科'],
      ['580', '脳卒中科'],
      ['590', '腫瘍治療科'],
      ['600', '総合診療科'],
      ['610', '乳腺甲状腺外科'],
      ['620', '新生児科'],
      ['630', '小児循環器科'],
      ['640', '緩和ケア科'],
      ['650', '内分泌リウマチ科'],
      ['660', '血液腫瘍内科'],
      ['670', '腎不全科'],
      ['680', '精神神経科'],
      ['690', '内分泌代謝科'],
      ['700', '病理診断科'],
      ['710', '臨床検査科'],
    ] as const
  ).map(([code, name]) => [code, name]),
);

// A two-digit code is the レセプト電算 診療科名コード (別表10), which some exports put in the same field.
const receiptDepartmentNames: ReadonlyMap<string, string> = new Map(
  departments.filter((d) => d.id < 100 && d.receCode !== null).map((d) => [d.receCode!, d.name]),
);

const mdcNames: ReadonlyMap<string, string> = new Map(mdcs.map((m) => [m.code, m.name]));

/**
 * A stay's department as the referral page shows it: `循環器内科（350）`, the code alone when no list
 * names it. The code stays visible because the 3-digit list is not verified for every fiscal year.
 */
export function admissionDepartment(code: string | null): string | null {
  if (code === null) return null;
  const trimmed = code.trim();
  if (trimmed === '') return null;
  const name = (trimmed.length === 2 ? receiptDepartmentNames : dpcDepartmentNames).get(trimmed);
  return name ? `${name}（${trimmed}）` : `診療科コード ${trimmed}`;
}

/**
 * The name of a DPC code's 主要診断群 (MDC: its first two digits), for `dpc_name`: the 診断群分類
 * names themselves are in MHLW's 電子点数表, which no hospital file carries and the product does not
 * bundle (docs/decisions.md "DPC names").
 */
export function dpcGroupName(dpcCode: string | null): string | null {
  if (dpcCode === null || dpcCode.length < 2) return null;
  const mdc = dpcCode.slice(0, 2);
  const name = mdcNames.get(mdc);
  return name ? `MDC${mdc} ${name}` : null;
}
