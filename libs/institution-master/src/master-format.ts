/**
 * The documented master file format (issue 4 §1): CSV or TSV, UTF-8 (BOM optional) or Shift_JIS (cp932),
 * header optional. With a header, columns are matched by name in any order; without one, they are
 * taken in this order.
 */
export const masterColumns = [
  { key: 'code', header: '医療機関コード' },
  { key: 'name', header: '名称' },
  { key: 'kana', header: 'カナ' },
  { key: 'postalCode', header: '郵便番号' },
  { key: 'address', header: '所在地' },
  { key: 'tel', header: '電話番号' },
  { key: 'founder', header: '開設者' },
  { key: 'administrator', header: '管理者' },
  { key: 'facilityType', header: '施設種別' },
  { key: 'bedCount', header: '病床数' },
  { key: 'departments', header: '診療科' },
  { key: 'latitude', header: '緯度' },
  { key: 'longitude', header: '経度' },
  { key: 'status', header: '状態' },
] as const;

export type MasterColumnKey = (typeof masterColumns)[number]['key'];
export type MasterRecord = Record<MasterColumnKey, string>;

/** 診療科 cell: names separated by 、 (also accepted: | ; ,). */
export const departmentSeparator = '、';
export function splitDepartmentCell(cell: string): string[] {
  return cell
    .split(/[、|;,，､]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export type RunningStatus = 'open' | 'closed' | 'suspended' | 'unknown';
export const runningStatusLabels: Record<RunningStatus, string> = {
  open: '開設',
  closed: '廃止',
  suspended: '休止',
  unknown: '不明',
};
const statusByText: Record<string, RunningStatus> = {
  開設: 'open',
  運営中: 'open',
  open: 'open',
  廃止: 'closed',
  閉院: 'closed',
  closed: 'closed',
  休止: 'suspended',
  休院: 'suspended',
  suspended: 'suspended',
  不明: 'unknown',
  unknown: 'unknown',
  '': 'unknown',
};
export function parseRunningStatus(cell: string): RunningStatus | undefined {
  return statusByText[cell.normalize('NFKC').trim().toLowerCase()];
}
