import type { FeatureKey } from '@renkei/contracts/client';

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

/** The features as the support account reads them: the menu's words where a menu entry exists. */
export const featureLabels: Record<FeatureKey, string> = {
  medical_institutions_search: '連携先管理',
  sale_map: '営業分析マップ',
  data_analysis: 'データ分析',
  action_lists: 'アクションリスト',
  emails: 'HTMLメール',
  communications: 'コミュニケーション',
  alerts: 'アラート',
  tasks: 'タスク',
  accounts: 'アカウント管理',
  tags: 'タグ管理',
  data_uploads: 'データアップロード',
  reverse_referrals: '逆紹介',
  report: 'レポート',
  medical_institution_report: '医療機関レポート',
  own_department_report: '自院診療科レポート',
  area_report: 'エリアレポート',
  communication_report: 'コミュニケーションレポート',
  dashboard: 'ダッシュボード',
  labels: 'ラベル管理',
  medical_institution_labels: '医療機関ラベル',
  communication_labels: '活動ラベル',
  diagnosis_analysis: '診断名分析',
  email_sender_restricted: 'メール送信元の制限',
};

/** CIDR ranges one per line (or comma-separated), as the API takes them. */
export function parseLines(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((line) => line.trim())
    .filter(Boolean);
}
