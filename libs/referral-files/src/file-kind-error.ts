/** The kinds of file this library reads; the names match the spec's import types. */
export type ReferralFileKind =
  'referral' | 'reverse_referral' | 'ff1_file' | 'd_file' | 'hospital_admission_ef_file' | 'outpatient_ef_file';

export const fileKindLabels: Record<ReferralFileKind, string> = {
  referral: '紹介データ',
  reverse_referral: '逆紹介データ',
  ff1_file: '様式1（FF1）ファイル',
  d_file: 'Dファイル',
  hospital_admission_ef_file: '入院EF統合ファイル',
  outpatient_ef_file: '外来EF統合ファイル',
};

/**
 * The whole file is not of the kind asked for (an EF file uploaded as FF1, a list whose mapped columns
 * do not exist). Thrown before any record is yielded, so an importer stores nothing from it.
 */
export class FileKindError extends Error {
  readonly expected: ReferralFileKind;
  constructor(expected: ReferralFileKind, message: string) {
    super(message);
    this.name = 'FileKindError';
    this.expected = expected;
  }
}

/** A guess from the column count, to tell the user what they probably uploaded. */
export function describeColumnCount(count: number): string {
  if (count === 17) return '（17列: 様式1（FF1）の形式です）';
  if (count === 31) return '（31列: EF統合ファイルの形式です）';
  if (count === 30) return '（30列: Dファイルの形式です）';
  return '';
}
