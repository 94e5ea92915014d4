import fs from 'node:fs';
import path from 'node:path';
import iconv from 'iconv-lite';
import type { ReferralFileKind } from '../file-kind-error.ts';
import {
  demoClinicDepartments,
  demoDepartments,
  demoSurnames,
  type DemoDepartment,
  type DemoDisease,
} from './demo-clinical.ts';

export interface GenerateDemoReferralOptions {
  seed?: number | undefined;
  /** The demo region's institutions (10-digit codes, e.g. from generateInstitutionMaster); 医科 ones refer. */
  institutions: readonly { code: string; name: string }[];
  /** The demo hospital's own 10-digit 医療機関コード: its 施設コード in the DPC files derives from it. */
  ownInstitutionCode: string;
  /** 年度 to cover, e.g. [2022, 2023, 2024] (April–March each). */
  fiscalYears: readonly number[];
  /**
   * The last day with data, as `YYYY-MM-DD` (default: the last 31 March). A hospital's files end at the
   * day they were exported: nothing is referred, admitted, discharged or sent back after it, and a stay
   * not yet discharged is not in the DPC files (様式1 is written at discharge).
   */
  until?: string | undefined;
  /** Referrals in the first year (default 9,000: a mid-size hospital); later years follow the trends. */
  referralsPerYear?: number | undefined;
  /** Admissions without a referral (emergency, own outpatients) per year (default 2,500). */
  otherAdmissionsPerYear?: number | undefined;
}

export interface DemoReferralFile {
  kind: ReferralFileKind;
  path: string;
  /** Data rows written (the header not counted). */
  rows: number;
}

export interface DemoReferralFiles {
  files: DemoReferralFile[];
  /** The hospital's own column names, as a mapping screen would save them. */
  referralMapping: Record<string, string>;
  reverseReferralMapping: Record<string, string>;
  /** The hospital's departments as its lists name them (紹介先診療科, 自院診療科), to set up as its own. */
  ownDepartments: string[];
}

/** mulberry32, as the institution-master generator: the same sequence on every machine for a seed. */
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

/** Fiscal-month index 0 = April. Winter brings more cardiac and respiratory cases; August is quiet. */
const seasonality = [1.0, 0.95, 1.02, 1.0, 0.84, 0.95, 1.04, 1.0, 1.08, 1.14, 1.02, 0.97];

type Trend =
  | { kind: 'stable' }
  | { kind: 'growing'; rate: number }
  | { kind: 'declining'; rate: number }
  | { kind: 'stopping'; at: number };

const day = 86_400_000;
const toUtc = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d);
const ymd = (t: number) => {
  const d = new Date(t);
  return `${d.getUTCFullYear()}${String(d.getUTCMonth() + 1).padStart(2, '0')}${String(d.getUTCDate()).padStart(2, '0')}`;
};
const slashDate = (t: number) => {
  const s = ymd(t);
  return `${s.slice(0, 4)}/${s.slice(4, 6)}/${s.slice(6, 8)}`;
};
/** 和暦 as hospital systems print it: R6.4.1, and H31.4.30 before 2019-05-01. */
const warekiDate = (t: number) => {
  const d = new Date(t);
  const y = d.getUTCFullYear();
  const reiwa = t >= toUtc(2019, 5, 1);
  return `${reiwa ? 'R' : 'H'}${reiwa ? y - 2018 : y - 1988}.${d.getUTCMonth() + 1}.${d.getUTCDate()}`;
};

/** Writes lines in cp932 in ~1 MB batches: memory stays small, output is byte-identical per seed. */
class LineWriter {
  private parts: string[] = [];
  private size = 0;
  rows = 0;
  private readonly fd: number;
  constructor(readonly path: string) {
    this.fd = fs.openSync(path, 'w');
  }
  line(cells: readonly (string | number)[], delimiter: string, countRow = true): void {
    const text = cells.join(delimiter) + '\r\n';
    this.parts.push(text);
    this.size += text.length;
    if (countRow) this.rows++;
    if (this.size > 500_000) this.flush();
  }
  private flush(): void {
    if (this.parts.length === 0) return;
    fs.writeSync(this.fd, iconv.encode(this.parts.join(''), 'cp932'));
    this.parts = [];
    this.size = 0;
  }
  close(): void {
    this.flush();
    fs.closeSync(this.fd);
  }
}

interface Stay {
  patientId: number;
  admission: number;
  discharge: number;
  department: DemoDepartment;
  disease: DemoDisease;
  operation: { index: number; date: number } | null;
  referredFrom: boolean;
  route: string;
  emergency: string;
  ambulance: string;
  destination: string;
  outcome: string;
  birth: number;
  sex: string;
}

/** The 医科 institutions that send referrals: every one but the hospital itself. */
function referrersOf(options: Pick<GenerateDemoReferralOptions, 'institutions' | 'ownInstitutionCode'>) {
  return options.institutions.filter((i) => i.code[2] === '1' && i.code !== options.ownInstitutionCode);
}

/** Each referrer's size, trend and habits: the first draws of the generator's sequence. */
function referrerProfiles(r: Rng, referrers: readonly { code: string; name: string }[], yearCount: number) {
  return referrers.map((inst, rank) => {
    const roll = r.next();
    const trend: Trend =
      roll < 0.15
        ? { kind: 'growing', rate: 0.25 + r.next() * 0.35 }
        : roll < 0.25
          ? { kind: 'declining', rate: 0.2 + r.next() * 0.3 }
          : roll < 0.31
            ? { kind: 'stopping', at: r.int(6, yearCount * 12 - 4) }
            : { kind: 'stable' };
    return {
      inst,
      // Zipf-like: a few institutions send most referrals, as every hospital's ranking shows.
      base: 1 / Math.pow(rank + 1 + r.next() * 3, 0.75),
      trend,
      department: r.pick(demoClinicDepartments),
      doctor: `${r.pick(demoSurnames)} ${r.pick(['一郎', '健', '誠', '裕子', '直樹', '恵', '隆', '明美'])}`,
      favourite: r.pick(demoDepartments),
    };
  });
}

export interface DemoReferrer {
  code: string;
  /** Relative share of the referrals in the first 年度 (the trend changes it later). */
  base: number;
  /** For an institution that stops sending: the first day of the first month without referrals. */
  stoppedFrom: string | null;
}

/**
 * The referrers the generator draws for the same options, largest first: what other demo data (the
 * liaison staff's visits) must agree with, without generating the files.
 */
export function demoReferrers(
  options: Pick<GenerateDemoReferralOptions, 'seed' | 'institutions' | 'ownInstitutionCode' | 'fiscalYears'>,
): DemoReferrer[] {
  const first = Math.min(...options.fiscalYears);
  return referrerProfiles(rng(options.seed ?? 20240401), referrersOf(options), options.fiscalYears.length)
    .map((p) => {
      let stoppedFrom: string | null = null;
      if (p.trend.kind === 'stopping') {
        const d = new Date(Date.UTC(first, 3 + p.trend.at, 1));
        stoppedFrom = d.toISOString().slice(0, 10);
      }
      return { code: p.inst.code, base: p.base, stoppedFrom };
    })
    .sort((a, b) => b.base - a.base);
}

/**
 * Writes the demo hospital's referral data for `fiscalYears`: a 紹介 list and a 逆紹介 list in the
 * hospital's own column names (comma, Shift_JIS, CRLF; 和暦 dates in the 紹介 list), and per year an FF1
 * (long), a D and an inpatient EF file (tab, Shift_JIS, CRLF, no header) for the same stays. Referral
 * volume follows seasonality; some institutions grow, some decline, some stop. Same seed, same bytes.
 */
export async function generateDemoReferralFiles(
  dir: string,
  options: GenerateDemoReferralOptions,
): Promise<DemoReferralFiles> {
  const r = rng(options.seed ?? 20240401);
  const own = options.ownInstitutionCode;
  if (!/^\d{10}$/.test(own)) throw new Error(`ownInstitutionCode must have 10 digits, got "${own}"`);
  const facilityCode = own.slice(0, 2) + own.slice(3);
  const years = [...options.fiscalYears].sort((a, b) => a - b);
  const perYear = options.referralsPerYear ?? 9000;
  const othersPerYear = options.otherAdmissionsPerYear ?? 2500;
  const referrers = referrersOf(options);
  if (referrers.length === 0) throw new Error('no 医科 institution to refer from');
  await fs.promises.mkdir(dir, { recursive: true });

  const profiles = referrerProfiles(r, referrers, years.length);
  const departmentWeights = cumulative(demoDepartments.map((d) => d.weight));
  const doctorsByDepartment = new Map(
    demoDepartments.map((d) => [
      d,
      [0, 1, 2].map(() => `${r.pick(demoSurnames)} ${r.pick(['太郎', '修', '聡', '香織', '浩'])}`),
    ]),
  );

  const referralPath = path.join(dir, `紹介一覧_${years[0]}-${years[years.length - 1]}年度.csv`);
  const reversePath = path.join(dir, `逆紹介一覧_${years[0]}-${years[years.length - 1]}年度.csv`);
  const referralHeader = [
    '紹介年月日',
    'カルテ番号',
    '紹介元コード',
    '紹介元病院名',
    '紹介元科',
    '紹介医師',
    '受診科',
    '担当医',
    '紹介理由',
    '初再診区分',
  ];
  const reverseHeader = ['逆紹介年月日', '患者番号', '紹介先医療機関コード', '紹介先医療機関名', '診療科', '管理番号'];
  const referrals = new LineWriter(referralPath);
  const reverse = new LineWriter(reversePath);
  referrals.line(referralHeader, ',', false);
  reverse.line(reverseHeader, ',', false);

  const staysByYear = new Map<number, Stay[]>(years.map((y) => [y, []]));
  const yearsEnd = toUtc(years[years.length - 1]! + 1, 3, 31);
  const lastDay = options.until ? Math.min(yearsEnd, Date.parse(`${options.until}T00:00:00Z`)) : yearsEnd;
  if (Number.isNaN(lastDay)) throw new Error(`until must be YYYY-MM-DD, got "${options.until}"`);
  let nextPatient = 1000;
  const recentPatients: number[] = [];
  let reverseNumber = 0;

  const stayFor = (patientId: number, admission: number, department: DemoDepartment, referred: boolean): Stay => {
    const disease = r.pick(department.diseases);
    const operated = disease.operations.length > 0 && r.chance(disease.operatedShare);
    const los = r.int(2, operated ? 14 : 18);
    const discharge = admission + los * day;
    const emergencyRoll = referred ? r.chance(0.15) : r.chance(0.6);
    return {
      patientId,
      admission,
      discharge,
      department,
      disease,
      operation: operated
        ? { index: r.int(0, disease.operations.length - 1), date: admission + r.int(0, Math.min(2, los - 1)) * day }
        : null,
      referredFrom: referred,
      route: referred ? r.pick(['1', '1', '1', '4']) : '1',
      emergency: emergencyRoll ? r.pick(['301', '302', '305', '309']) : '100',
      ambulance: emergencyRoll && r.chance(0.5) ? '1' : '0',
      destination: referred ? r.pick(['1', '2', '2', '2', '4', '5']) : r.pick(['1', '1', '2', '4', '6', '8']),
      outcome: r.pick(['1', '1', '1', '1', '3', '4', '9']),
      birth: toUtc(r.int(1930, 2005), r.int(1, 12), r.int(1, 28)),
      sex: r.pick(['1', '2']),
    };
  };

  years.forEach((fy, yearIndex) => {
    for (let m = 0; m < 12; m++) {
      const monthIndex = yearIndex * 12 + m;
      const calMonth = ((m + 3) % 12) + 1;
      const calYear = m < 9 ? fy : fy + 1;
      if (toUtc(calYear, calMonth, 1) > lastDay) break;
      // The month of the last day has data up to it only, in proportion.
      const monthDays = new Date(Date.UTC(calYear, calMonth, 0)).getUTCDate();
      const daysInMonth = Math.min(monthDays, Math.round((lastDay - toUtc(calYear, calMonth, 1)) / day) + 1);
      const monthShare = daysInMonth / monthDays;
      const weights = cumulative(
        profiles.map((p) => {
          const t = p.trend;
          const f =
            t.kind === 'growing'
              ? Math.pow(1 + t.rate, monthIndex / 12)
              : t.kind === 'declining'
                ? Math.pow(1 - t.rate, monthIndex / 12)
                : t.kind === 'stopping' && monthIndex >= t.at
                  ? 0
                  : 1;
          return p.base * f;
        }),
      );
      const count = Math.round((perYear / 12) * seasonality[m]! * monthShare * (0.93 + r.next() * 0.14));
      for (let i = 0; i < count; i++) {
        const p = profiles[draw(weights, r.next())]!;
        const dept = r.chance(0.5) ? p.favourite : demoDepartments[draw(departmentWeights, r.next())]!;
        const date = toUtc(calYear, calMonth, r.int(1, daysInMonth));
        let patientId: number;
        if (recentPatients.length > 50 && r.chance(0.08)) patientId = r.pick(recentPatients);
        else {
          patientId = nextPatient;
          nextPatient += r.int(1, 9);
          recentPatients.push(patientId);
          if (recentPatients.length > 400) recentPatients.shift();
        }
        const first = r.chance(0.85);
        referrals.line(
          [
            warekiDate(date),
            String(patientId),
            p.inst.code,
            csvCell(p.inst.name),
            p.department,
            p.doctor,
            dept.name,
            r.pick(doctorsByDepartment.get(dept)!),
            r.pick(dept.purposes),
            first ? '初診' : '再診',
          ],
          ',',
        );
        if (r.chance(dept.admissionShare)) {
          const admission = date + r.int(0, 40) * day;
          const stay = admission <= lastDay ? stayFor(patientId, admission, dept, true) : null;
          if (stay && stay.discharge <= lastDay) {
            staysByYear.get(fiscalYearOf(admission))?.push(stay);
            if (stay.destination === '2' || stay.destination === '4') {
              reverse.line(
                [
                  slashDate(stay.discharge),
                  String(patientId),
                  p.inst.code.slice(3),
                  csvCell(p.inst.name),
                  dept.name,
                  `G${String(++reverseNumber).padStart(7, '0')}`,
                ],
                ',',
              );
            }
          }
        } else if (r.chance(0.45)) {
          // An outpatient sent back to its clinic after the work-up.
          const back = date + r.int(14, 120) * day;
          if (back <= lastDay)
            reverse.line(
              [
                slashDate(back),
                String(patientId),
                p.inst.code.slice(3),
                csvCell(p.inst.name),
                dept.name,
                `G${String(++reverseNumber).padStart(7, '0')}`,
              ],
              ',',
            );
        }
      }
      const others = Math.round((othersPerYear / 12) * seasonality[m]! * monthShare);
      for (let i = 0; i < others; i++) {
        const patientId = nextPatient;
        nextPatient += r.int(1, 9);
        const dept = demoDepartments[draw(departmentWeights, r.next())]!;
        const stay = stayFor(patientId, toUtc(calYear, calMonth, r.int(1, daysInMonth)), dept, false);
        if (stay.discharge <= lastDay) staysByYear.get(fy)!.push(stay);
      }
    }
  });
  referrals.close();
  reverse.close();

  const files: DemoReferralFile[] = [
    { kind: 'referral', path: referralPath, rows: referrals.rows },
    { kind: 'reverse_referral', path: reversePath, rows: reverse.rows },
  ];
  for (const fy of years) {
    const stays = staysByYear.get(fy)!.sort((a, b) => a.patientId - b.patientId || a.admission - b.admission);
    // A 年度 that has only begun (until is 1 April) has no discharged stay: a hospital sends no file for it.
    if (stays.length === 0) continue;
    files.push(...writeDpcFiles(dir, fy, facilityCode, stays, r));
  }
  return {
    files,
    ownDepartments: demoDepartments.map((d) => d.name),
    referralMapping: {
      紹介日: '紹介年月日',
      患者ID: 'カルテ番号',
      紹介元医療機関コード: '紹介元コード',
      紹介元医療機関名: '紹介元病院名',
      紹介元診療科: '紹介元科',
      紹介元医師名: '紹介医師',
      紹介先診療科: '受診科',
      紹介先医師名: '担当医',
      紹介目的: '紹介理由',
      初診: '初再診区分',
    },
    reverseReferralMapping: {
      逆紹介日: '逆紹介年月日',
      患者ID: '患者番号',
      逆紹介先医療機関コード: '紹介先医療機関コード',
      逆紹介先医療機関名: '紹介先医療機関名',
      自院診療科: '診療科',
      管理番号: '管理番号',
    },
  };
}

function fiscalYearOf(t: number): number {
  const d = new Date(t);
  return d.getUTCMonth() >= 3 ? d.getUTCFullYear() : d.getUTCFullYear() - 1;
}

function cumulative(weights: readonly number[]): Float64Array {
  const out = new Float64Array(weights.length);
  let sum = 0;
  weights.forEach((w, i) => (out[i] = sum += w));
  return out;
}

function draw(cum: Float64Array, u: number): number {
  const target = u * cum[cum.length - 1]!;
  let lo = 0;
  let hi = cum.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cum[mid]! <= target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Institution names may hold a comma (株式会社…, 医療法人…); quote such cells as Excel would. */
function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function writeDpcFiles(
  dir: string,
  fy: number,
  facilityCode: string,
  stays: readonly Stay[],
  r: Rng,
): DemoReferralFile[] {
  const ff1 = new LineWriter(path.join(dir, `FF1_${facilityCode}_${fy}.txt`));
  const d = new LineWriter(path.join(dir, `D_${facilityCode}_${fy}.txt`));
  const ef = new LineWriter(path.join(dir, `EFn_${facilityCode}_${fy}.txt`));
  const tab = '\t';
  for (const s of stays) {
    const dataId = String(s.patientId).padStart(10, '0');
    const adm = ymd(s.admission);
    const dis = ymd(s.discharge);
    const ff1Row = (code: string, version: string, seq: number, payloads: readonly string[]) => {
      const p = [...payloads];
      while (p.length < 9) p.push('');
      ff1.line([facilityCode, dataId, adm, '0', '0', code, version, seq, ...p], tab);
    };
    const op = s.operation ? s.disease.operations[s.operation.index]! : null;
    ff1Row('A000010', '20180401', 0, [
      ymd(s.birth),
      s.sex,
      `4${r.int(10, 39)}${String(r.int(0, 9999)).padStart(4, '0')}`,
    ]);
    ff1Row('A000020', '20220401', 0, [
      adm,
      s.route,
      s.referredFrom ? '1' : '0',
      s.referredFrom ? '0' : r.pick(['0', '1']),
      s.emergency,
      s.ambulance,
      '0',
      '0',
      '0',
    ]);
    ff1Row('A000030', '20180401', 0, [dis, s.destination, s.outcome, '0', '0']);
    ff1Row('A000040', '20180401', 0, ['', s.department.code, '0']);
    ff1Row('A006010', '20180401', 0, ['', s.disease.icd10, '', '', '', '', '', '', s.disease.name]);
    ff1Row('A006030', '20180401', 0, ['', s.disease.icd10, '', '', '', '', '', '', s.disease.name]);
    if (op && s.operation) {
      ff1Row('A007010', '20220401', 1, [
        ymd(s.operation.date),
        op.kcode,
        '',
        '1',
        '0',
        op.anesthesia ? '1' : '0',
        '',
        '',
        op.name,
      ]);
    }
    ff1Row('ADL0010', '20180401', 0, ['', '2222222222']);
    ff1Row('ADL0020', '20180401', 0, ['', r.pick(['2222222222', '2221121212', '1111111111'])]);
    ff1Row('JCS0010', '20180401', 0, ['', r.pick(['0', '0', '0', '1', '10'])]);

    const dpc = `${s.disease.dpc6}xx${op ? '97' : '99'}0${r.pick(['x', '0', '1'])}xx`;
    const dRow = (dataClass: string, order: number, receCode: string, interp: string, name: string, points: number) =>
      d.line(
        [
          facilityCode,
          dataId,
          dis,
          adm,
          dataClass,
          order,
          '',
          receCode,
          interp,
          name,
          points,
          0,
          0,
          '0',
          1,
          '06220000',
          '1112',
          adm,
          '',
          s.department.code,
          'D0001',
          'W1',
          '1',
          '1',
          '01',
          adm,
          dis,
          adm,
          dpc,
          '1.4321',
        ],
        tab,
      );
    dRow('93', 1, '', '', '包括評価部分', r.int(20000, 80000));
    if (op) dRow('50', 2, op.receCode, op.kcode, op.name, r.int(5000, 60000));

    const efRow = (
      dataClass: string,
      order: number,
      detail: string,
      receCode: string,
      interp: string,
      name: string,
      date: string,
      points: number,
    ) =>
      ef.line(
        [
          facilityCode,
          dataId,
          dis,
          adm,
          dataClass,
          order,
          detail,
          `H${receCode}`,
          receCode,
          interp,
          name,
          1,
          '',
          points,
          '0',
          points,
          '000000000000',
          points,
          0,
          0,
          1,
          '06220000',
          '1112',
          date,
          '01',
          s.department.code,
          'D0001',
          'W1',
          '1',
          '1',
          '001',
        ],
        tab,
      );
    efRow('90', 1, '000', '', '', '', adm, 0);
    efRow('90', 1, '001', '190117710', 'A100', '急性期一般入院料１', adm, 1688);
    efRow('60', 2, '001', '160000310', 'D007', '血液化学検査', adm, 93);
    efRow('21', 3, '001', '620000001', '', 'ロキソプロフェンＮａ錠６０ｍｇ', adm, 1);
    if (op && s.operation) {
      const opDate = ymd(s.operation.date);
      efRow('50', 4, '000', '', '', '', opDate, 0);
      efRow('50', 4, '001', op.receCode, op.kcode, op.name, opDate, r.int(5000, 60000));
      efRow('50', 4, '002', '730000001', '', '手術用材料', opDate, 120);
      if (op.anesthesia)
        efRow('54', 5, '001', op.anesthesia.receCode, 'L008', op.anesthesia.name, opDate, r.int(6000, 9000));
    }
  }
  for (const w of [ff1, d, ef]) w.close();
  return [
    { kind: 'ff1_file', path: ff1.path, rows: ff1.rows },
    { kind: 'd_file', path: d.path, rows: d.rows },
    { kind: 'hospital_admission_ef_file', path: ef.path, rows: ef.rows },
  ];
}
