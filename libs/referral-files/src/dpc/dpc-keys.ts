import { patientKeyOf } from '../parsed.ts';
import { compactDate } from '../dates.ts';

/**
 * The identity of a hospital stay (DPC 入院): 施設コード + データ識別番号 + 入院年月日 + 回数管理番号.
 * データ識別番号 enters without leading zeros so a padded and an unpadded export of the same patient
 * meet. EF and D rows carry no 回数管理番号; they join on the first three parts (`stayJoinKey`).
 */
export function stayKeyOf(facilityCode: string, dataId: string, admissionDate: string, countNumber: string): string {
  return `${stayJoinKeyOf(facilityCode, dataId, admissionDate)}|${countNumber === '' ? '0' : countNumber}`;
}

export function stayJoinKeyOf(facilityCode: string, dataId: string, admissionDate: string): string {
  return `${facilityCode}|${patientKeyOf(dataId)}|${compactDate(admissionDate)}`;
}

/** 施設コード: 都道府県番号(2) + 医療機関コード(7). */
export const facilityCodePattern = /^\d{9}$/;
/** データ識別番号: up to 10 characters, usually the zero-padded patient number (may be anonymised). */
export const dataIdPattern = /^[0-9A-Za-z]{1,10}$/;

/** A header line of a DPC file (the 2nd column named データ識別番号, or the first starting with 施設コード). */
export function isDpcHeader(cells: readonly string[]): boolean {
  return cells[1] === 'データ識別番号' || (cells[0] ?? '').startsWith('施設コード');
}

/** The 施設コード a tenant's DPC files may carry (its own hospital and its group's); none given: any. */
export interface FacilityScope {
  facilityCodes?: ReadonlySet<string> | undefined;
}

/** Why a row of another hospital is refused, or null when its 施設コード is in scope. */
export function foreignFacilityReason(facilityCode: string, scope: FacilityScope): string | null {
  const allowed = scope.facilityCodes;
  if (!allowed || allowed.size === 0 || allowed.has(facilityCode)) return null;
  return `施設コード「${facilityCode}」は自院・グループ病院の施設コード（${[...allowed].sort().join('、')}）ではありません`;
}

/**
 * The 9-digit 施設コード of a 10-digit 医療機関コード: 都道府県番号(2) + 医療機関コード(7), the 点数表
 * digit in between dropped.
 */
export function facilityCodeOfInstitutionCode(code: string): string | null {
  return /^\d{10}$/.test(code) ? code.slice(0, 2) + code.slice(3) : null;
}
