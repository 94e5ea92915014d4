import { createHash } from 'node:crypto';
import { isValidInstitutionCode } from './institution-code.ts';
import { institutionIdFromCode } from './institution-id.ts';
import { parseRunningStatus, splitDepartmentCell, type MasterRecord, type RunningStatus } from './master-format.ts';
import { buildSearchText } from './normalize.ts';
import { findDepartmentByName } from './reference/departments.ts';
import { findFacilityTypeByName } from './reference/facility-types.ts';
import { splitAddress } from './reference/prefectures.ts';

/** One institution as stored in `ref.medical_institutions`. */
export interface MasterInstitution {
  id: string;
  code: string;
  name: string;
  kana: string;
  postalCode: string;
  address: string;
  prefectureCode: number;
  prefecture: string;
  city: string;
  tel: string;
  founder: string;
  administratorName: string;
  facilityTypeId: number;
  facilityTypeGroupId: number;
  bedCount: number | null;
  departmentNames: string[];
  departmentIds: number[];
  latitude: number | null;
  longitude: number | null;
  runningStatus: RunningStatus;
  searchText: string;
  contentHash: string;
}

export type ParsedRow = { ok: true; value: MasterInstitution } | { ok: false; code: string | null; messages: string[] };

const text = (s: string) => s.normalize('NFKC').replace(/\s+/g, ' ').trim();

/** Validates one record of the master file; every problem of the row is reported, in Japanese. */
export function parseMasterRecord(record: MasterRecord): ParsedRow {
  const messages: string[] = [];
  const code = text(record.code).replace(/[-\s]/g, '');
  if (!/^\d{10}$/.test(code)) messages.push('医療機関コードは10桁の数字で入力してください');
  else if (!isValidInstitutionCode(code)) messages.push(`医療機関コード「${code}」の検証番号が正しくありません`);
  const name = text(record.name);
  if (!name) messages.push('名称を入力してください');
  else if (name.length > 200) messages.push('名称は200文字以内で入力してください');
  const address = text(record.address);
  const place = splitAddress(address);
  if (!address) messages.push('所在地を入力してください');
  else if (!place.prefecture) messages.push('所在地が都道府県名で始まっていません');
  const postalCode = text(record.postalCode);
  if (postalCode && !/^\d{3}-?\d{4}$/.test(postalCode)) messages.push('郵便番号は7桁の数字で入力してください');
  const tel = text(record.tel);
  if (tel && !/^[\d()-]{10,14}$/.test(tel)) messages.push('電話番号の形式が正しくありません');
  const facilityType = findFacilityTypeByName(record.facilityType);
  if (!facilityType) messages.push(`施設種別「${text(record.facilityType)}」は登録されていません`);
  const beds = text(record.bedCount);
  const bedCount = beds === '' ? null : Number(beds);
  if (bedCount !== null && (!Number.isInteger(bedCount) || bedCount < 0 || bedCount > 5000))
    messages.push('病床数は0以上の整数で入力してください');
  const lat = text(record.latitude);
  const lng = text(record.longitude);
  const latitude = lat === '' ? null : Number(lat);
  const longitude = lng === '' ? null : Number(lng);
  if (latitude !== null && !(Number.isFinite(latitude) && latitude >= 20 && latitude <= 46))
    messages.push('緯度が日本の範囲にありません');
  if (longitude !== null && !(Number.isFinite(longitude) && longitude >= 122 && longitude <= 154))
    messages.push('経度が日本の範囲にありません');
  const runningStatus = parseRunningStatus(record.status);
  if (!runningStatus)
    messages.push(`状態「${text(record.status)}」は開設・休止・廃止・不明のいずれかで入力してください`);
  if (messages.length > 0) return { ok: false, code: /^\d{10}$/.test(code) ? code : null, messages };

  // Names not on the shared list are kept as text: masters carry many local spellings.
  const departmentNames = splitDepartmentCell(record.departments.normalize('NFKC'));
  const departmentIds = [
    ...new Set(departmentNames.map((n) => findDepartmentByName(n)?.id).filter((id) => id !== undefined)),
  ];
  const kana = text(record.kana);
  const value: Omit<MasterInstitution, 'contentHash'> = {
    id: institutionIdFromCode(code),
    code,
    name,
    kana,
    postalCode:
      postalCode && !postalCode.includes('-') ? `${postalCode.slice(0, 3)}-${postalCode.slice(3)}` : postalCode,
    address,
    prefectureCode: place.prefecture!.code,
    prefecture: place.prefecture!.name,
    city: place.city ?? '',
    tel,
    founder: text(record.founder),
    administratorName: text(record.administrator),
    facilityTypeId: facilityType!.id,
    facilityTypeGroupId: facilityType!.groupId,
    bedCount,
    departmentNames,
    departmentIds,
    latitude,
    longitude,
    runningStatus: runningStatus!,
    searchText: buildSearchText({ code, name, kana, address }),
  };
  return {
    ok: true,
    value: { ...value, contentHash: createHash('sha1').update(JSON.stringify(value)).digest('base64url') },
  };
}
