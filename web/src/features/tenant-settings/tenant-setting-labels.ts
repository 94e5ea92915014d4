/** The settings as the screen and its change history name them. */
export const settingLabels: Record<string, string> = {
  name: 'テナント名',
  plan: 'プラン',
  feature_overrides: '無効にする機能',
  medical_institution_id: '自院',
  group_medical_institutions: 'グループ医療機関',
  is_group: 'グループ分析',
  enabled_phase: 'フェーズ',
  max_account_count: 'アカウント数の上限',
  max_tag_count: 'タグ数の上限',
  email_sender_allowed_addresses: '送信元として許可するメールアドレス',
  ip_allow_list: '許可するIPアドレス',
  prefecture: '都道府県',
  map_center: '地図の中心（緯度, 経度）',
  logo: 'ロゴ',
};

/** CIDR ranges one per line (or comma-separated), as the API takes them. */
export function parseLines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);
}
