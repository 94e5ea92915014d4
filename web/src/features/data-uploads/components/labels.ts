import type { DataUploadType } from '@renkei/contracts';

export const uploadTypes: { type: DataUploadType; label: string; expects: string }[] = [
  {
    type: 'referral',
    label: '紹介リスト',
    expects:
      '紹介日・患者ID・紹介元医療機関（コードまたは名称）のある一覧。列名は自院の形式のままで、初回に対応付けます。',
  },
  {
    type: 'reverse_referral',
    label: '逆紹介リスト',
    expects: '逆紹介日・患者ID・逆紹介先医療機関（コードまたは名称）のある一覧。列名は初回に対応付けます。',
  },
  {
    type: 'ff1_file',
    label: '様式1（FF1）',
    expects: 'DPC様式1の縦持ち形式（タブ区切り17列）または横持ち形式（FL00001）。入院ごとの手術・診断を取り込みます。',
  },
  {
    type: 'd_file',
    label: 'Dファイル',
    expects: 'DPC包括請求のDファイル（タブ区切り30列）。入院ごとのDPCコード（分類番号）を取り込みます。',
  },
  {
    type: 'hospital_admission_ef_file',
    label: 'EFファイル（入院）',
    expects:
      '入院EF統合ファイル（タブ区切り31列）。手術（データ区分50）・麻酔（54）の行と入退院日を使い、様式1に手術がない入院に反映します。',
  },
  {
    type: 'outpatient_ef_file',
    label: 'EFファイル（外来）',
    expects: '外来EF統合ファイル（タブ区切り31列）。患者ごとの外来受診日と診療科だけを取り込みます。',
  },
];

export const uploadTypeLabel = Object.fromEntries(uploadTypes.map((t) => [t.type, t.label])) as Record<
  DataUploadType,
  string
>;
