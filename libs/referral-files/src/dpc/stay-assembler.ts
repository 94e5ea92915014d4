import type { Ff1Row } from './ff1.ts';
import type { EfFact } from './ef.ts';
import type { DpcFact } from './d-file.ts';
import { stayJoinKeyOf, stayKeyOf } from './dpc-keys.ts';
import { patientKeyOf } from '../parsed.ts';
import { parseDpcDate } from '../dates.ts';

export interface StayOperation {
  date: string | null;
  /** Kコード as written (K0821, K672-2, K2821ﾛ). */
  kcode: string;
  name: string;
  /** FF1 A007010 P6 (麻酔 code), or the EF データ区分 54 item of the same day (L008 …). */
  anesthesia: { code: string; name: string | null } | null;
  source: 'ff1' | 'ef';
}

/** One hospital admission (domain research §1.7), what the referral analysis joins referrals to. */
export interface HospitalStay {
  /** 施設コード|データ識別番号 (no leading zeros)|入院年月日 (YYYYMMDD)|回数管理番号. */
  identity: string;
  facilityCode: string;
  dataId: string;
  /** データ識別番号 without leading zeros: compare with a referral's patientKey. */
  patientKey: string;
  admissionDate: string;
  countNumber: string;
  dischargeDate: string | null;
  /** A000040 P2 (様式1 3-digit code), else EF/D 診療科区分. */
  departmentCode: string | null;
  birthDate: string | null;
  sex: string | null;
  postalCode: string | null;
  /** ICD-10 of 主傷病 (A006010), else of 医療資源を最も投入した傷病 (A006030). */
  icd10Code: string | null;
  diseaseName: string | null;
  operations: StayOperation[];
  /** The first operation's fields, for the list columns. */
  kcode: string | null;
  operationName: string | null;
  operationDate: string | null;
  anesthesia: { code: string; name: string | null } | null;
  /** D 分類番号; its name comes from the MHLW 電子点数表 when `dpcNames` is given. */
  dpcCode: string | null;
  dpcName: string | null;
  /** ADL0010/0020, JCS0010/0020, M… codes: payloads without trailing blanks. */
  scores: Record<string, string[]>;
  /** A000020 P2 入院経路, P3 他院よりの紹介の有無, P4 自院の外来からの入院, P5 予定・救急, P6 救急車. */
  admissionRoute: string | null;
  referralIn: boolean | null;
  fromOwnOutpatient: string | null;
  scheduledOrEmergency: string | null;
  ambulance: string | null;
  /** A000030 P2 退院先, P3 退院時転帰, P4 24時間以内の死亡. */
  dischargeDestination: string | null;
  outcome: string | null;
  deathWithin24h: string | null;
  sources: { ff1: boolean; ef: boolean; d: boolean };
}

function blank(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

const scorePattern = /^(ADL|JCS|M\d)/;

function emptyStay(identity: string, facilityCode: string, dataId: string, admissionDate: string, countNumber: string) {
  const stay: HospitalStay = {
    identity,
    facilityCode,
    dataId,
    patientKey: patientKeyOf(dataId),
    admissionDate,
    countNumber,
    dischargeDate: null,
    departmentCode: null,
    birthDate: null,
    sex: null,
    postalCode: null,
    icd10Code: null,
    diseaseName: null,
    operations: [],
    kcode: null,
    operationName: null,
    operationDate: null,
    anesthesia: null,
    dpcCode: null,
    dpcName: null,
    scores: {},
    admissionRoute: null,
    referralIn: null,
    fromOwnOutpatient: null,
    scheduledOrEmergency: null,
    ambulance: null,
    dischargeDestination: null,
    outcome: null,
    deathWithin24h: null,
    sources: { ff1: false, ef: false, d: false },
  };
  return stay;
}

interface Pending {
  stay: HospitalStay;
  mainDisease: { code: string; name: string } | null;
  resourceDisease: { code: string; name: string } | null;
  ff1Operations: StayOperation[];
  efOperations: Map<string, StayOperation>;
  efAnesthesia: Map<string, { code: string; name: string }>;
  dpcPeriodEnd: string;
}

/**
 * Builds one record per stay from FF1 rows, EF facts and D facts, fed in any order and any mix of
 * files. Memory holds one entry per stay, never per row. FF1 wins where both say something (it is the
 * coded abstract); EF operations are used only for a stay whose FF1 has no A007010, so an operation is
 * never counted twice. Only the parent 様式1 (統括診療情報番号 0) is read; ward-transfer children repeat it.
 */
export class StayAssembler {
  private readonly byKey = new Map<string, Pending>();
  /** join key (no 回数管理番号) → stay keys, for EF and D. */
  private readonly byJoinKey = new Map<string, string[]>();

  constructor(private readonly options: { dpcNames?: ReadonlyMap<string, string> | undefined } = {}) {}

  private pending(facilityCode: string, dataId: string, admissionDate: string, countNumber: string): Pending {
    const key = stayKeyOf(facilityCode, dataId, admissionDate, countNumber);
    let p = this.byKey.get(key);
    if (!p) {
      p = {
        stay: emptyStay(key, facilityCode, dataId, admissionDate, countNumber === '' ? '0' : countNumber),
        mainDisease: null,
        resourceDisease: null,
        ff1Operations: [],
        efOperations: new Map(),
        efAnesthesia: new Map(),
        dpcPeriodEnd: '',
      };
      this.byKey.set(key, p);
      const join = stayJoinKeyOf(facilityCode, dataId, admissionDate);
      const list = this.byJoinKey.get(join);
      if (list) list.push(key);
      else this.byJoinKey.set(join, [key]);
    }
    return p;
  }

  /** EF and D know no 回数管理番号: they go to the stay with the lowest one of that day. */
  private joined(joinKey: string, facilityCode: string, dataId: string, admissionDate: string): Pending {
    const keys = this.byJoinKey.get(joinKey);
    if (keys && keys.length > 0) {
      const key = keys.length === 1 ? keys[0]! : [...keys].sort()[0]!;
      return this.byKey.get(key)!;
    }
    return this.pending(facilityCode, dataId, admissionDate, '0');
  }

  addFf1(row: Ff1Row): void {
    if (row.parentNumber !== '0') return;
    const p = this.pending(row.facilityCode, row.dataId, row.admissionDate, row.countNumber);
    const s = p.stay;
    const pl = row.payloads;
    s.sources.ff1 = true;
    // The stay may have been opened by EF or D, whose padding of データ識別番号 can differ: FF1 names it.
    s.dataId = row.dataId;
    switch (row.code) {
      case 'A000010':
        s.birthDate = parseDpcDate(pl[0] ?? '');
        s.sex = blank(pl[1]);
        s.postalCode = blank(pl[2]);
        break;
      case 'A000020':
        s.admissionRoute = blank(pl[1]);
        s.referralIn = pl[2] === '1' ? true : pl[2] === '0' ? false : null;
        s.fromOwnOutpatient = blank(pl[3]);
        s.scheduledOrEmergency = blank(pl[4]);
        s.ambulance = blank(pl[5]);
        break;
      case 'A000030':
        s.dischargeDate = parseDpcDate(pl[0] ?? '') ?? s.dischargeDate;
        s.dischargeDestination = blank(pl[1]);
        s.outcome = blank(pl[2]);
        s.deathWithin24h = blank(pl[3]);
        break;
      case 'A000040':
        s.departmentCode = blank(pl[1]) ?? s.departmentCode;
        break;
      case 'A006010':
        if (pl[1]) p.mainDisease = { code: pl[1], name: pl[8] ?? '' };
        break;
      case 'A006030':
        if (pl[1]) p.resourceDisease = { code: pl[1], name: pl[8] ?? '' };
        break;
      case 'A007010':
        if (pl[1])
          p.ff1Operations.push({
            date: parseDpcDate(pl[0] ?? ''),
            kcode: pl[1],
            name: pl[8] ?? '',
            anesthesia: pl[5] ? { code: pl[5], name: null } : null,
            source: 'ff1',
          });
        break;
      default:
        if (scorePattern.test(row.code)) {
          const values = [...pl];
          while (values.length > 0 && values[values.length - 1] === '') values.pop();
          s.scores[row.code] = values;
        }
    }
  }

  addEf(fact: EfFact): void {
    if (fact.type === 'visit') return;
    if (fact.type === 'stay') {
      const p = this.joined(fact.joinKey, fact.facilityCode, fact.dataId, fact.admissionDate);
      p.stay.sources.ef = true;
      p.stay.dischargeDate ??= fact.dischargeDate;
      if (fact.departmentCode !== '') p.stay.departmentCode ??= fact.departmentCode;
      return;
    }
    const keys = this.byJoinKey.get(fact.joinKey);
    // A stay fact always precedes its operation rows in a file; without one the row is orphaned.
    if (!keys) return;
    const p = this.byKey.get([...keys].sort()[0]!)!;
    if (fact.type === 'operation') {
      if (!p.efOperations.has(fact.identity))
        p.efOperations.set(fact.identity, {
          date: fact.date,
          kcode: fact.kcode,
          name: fact.name,
          anesthesia: null,
          source: 'ef',
        });
    } else {
      p.efAnesthesia.set(fact.date ?? '', { code: fact.lcode, name: fact.name });
    }
  }

  addD(fact: DpcFact): void {
    const p = this.joined(fact.joinKey, fact.facilityCode, fact.dataId, fact.admissionDate);
    p.stay.sources.d = true;
    p.stay.dischargeDate ??= fact.dischargeDate;
    if (fact.departmentCode !== '') p.stay.departmentCode ??= fact.departmentCode;
    const end = fact.periodEnd ?? '';
    if (p.stay.dpcCode === null || end >= p.dpcPeriodEnd) {
      p.stay.dpcCode = fact.dpcCode;
      p.dpcPeriodEnd = end;
    }
  }

  /** The stays, ordered by identity; the assembler can keep being fed afterwards. */
  stays(): HospitalStay[] {
    return [...this.byKey.keys()].sort().map((key) => this.finish(this.byKey.get(key)!));
  }

  private finish(p: Pending): HospitalStay {
    const s: HospitalStay = { ...p.stay, sources: { ...p.stay.sources }, scores: { ...p.stay.scores } };
    const disease = p.mainDisease ?? p.resourceDisease;
    s.icd10Code = disease?.code ?? null;
    s.diseaseName = disease ? disease.name || null : null;
    const efOps = [...p.efOperations.values()]
      .map((op) => ({ ...op, anesthesia: op.date !== null ? (p.efAnesthesia.get(op.date) ?? null) : null }))
      .sort((a, b) => (a.date ?? '').localeCompare(b.date ?? ''));
    // A 行為 can carry the same K code on several detail rows; one operation per day and code.
    const seen = new Set<string>();
    const dedupedEf = efOps.filter((op) => {
      const k = `${op.date}|${op.kcode}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    s.operations = p.ff1Operations.length > 0 ? p.ff1Operations.map((op) => ({ ...op })) : dedupedEf;
    const firstOp = s.operations[0];
    s.kcode = firstOp?.kcode ?? null;
    s.operationName = firstOp ? firstOp.name || null : null;
    s.operationDate = firstOp?.date ?? null;
    s.anesthesia = firstOp?.anesthesia ?? null;
    s.dpcName = s.dpcCode ? (this.options.dpcNames?.get(s.dpcCode) ?? null) : null;
    return s;
  }
}
