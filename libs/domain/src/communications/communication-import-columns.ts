/**
 * Header names of the communication import CSV (spec §4 imports; names as the screens say them). The
 * query side writes them into the template, the worker reads files by them. Any other header names a
 * communication label of the row's type. An update file (PUT) is the CSV export of a communication
 * search, edited: `ID` names the record, and the export's own columns are read back or ignored.
 */
export const communicationImportColumns = {
  id: 'ID',
  institutionCode: '医療機関コード',
  institutionName: '医療機関名',
  actedDate: '活動日',
  type: '種別',
  user: '担当者',
  category: 'カテゴリ',
  purpose: '目的',
  story: '内容',
  eventName: 'イベント名',
  memo: 'メモ',
  otherMemo: 'その他メモ',
  personInChargeHospital: '先方担当者',
  attendee: '同行者',
  doctorAttended: '医師面談',
  /** The export's label column: 「ラベル: 値 / ラベル: 値」. */
  labels: 'ラベル',
} as const;
export type CommunicationImportColumn = keyof typeof communicationImportColumns;

/** Columns of the search export that an update file carries but that cannot change through it. */
export const communicationImportIgnoredColumns = ['医療機関', 'タスク', 'いいね', 'コメント'] as const;

/** The cell of 医師面談 that means a doctor was met; empty or one of `doctorAttendedNo` means not. */
export const doctorAttendedYes = ['あり', '有', 'はい', '○', '〇', 'true', '1'] as const;
/**
 * The cells of 医師面談 that mean no doctor was met (besides an empty one). Any other word is a row
 * error: read as "not met", a typo would lower the doctor-interview rate without anyone knowing.
 */
export const doctorAttendedNo = ['なし', '無', 'いいえ', '×', '✕', 'false', '0', '-', 'ー'] as const;
