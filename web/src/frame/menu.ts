import { menuFeature, type FeatureKey, type Role } from '@renkei/contracts/client';

export interface MenuEntry {
  key: string;
  label: string;
  to: string;
  feature: FeatureKey;
  /** Other paths that highlight this entry. */
  alsoActiveOn?: string[];
  children?: MenuEntry[];
  /** An owner's page (docs/decisions.md "Roles"): members do not see it. */
  ownerOnly?: true;
}

/** What decides the menu: the tenant's features and the account's role. */
export interface MenuUser {
  features: readonly FeatureKey[];
  role: Role;
}

/** The side menu of spec §2, in its order. Each entry shows only when the account has its feature. */
export const menuEntries: MenuEntry[] = [
  { key: 'DataAnalysis', label: 'データ分析', to: '/data_analysis', feature: menuFeature.DataAnalysis },
  { key: 'SegmentMap', label: '診療圏分析', to: '/segment_map', feature: menuFeature.DataAnalysis },
  { key: 'SaleMap', label: '営業分析マップ', to: '/sale_map', feature: menuFeature.SaleMap },
  { key: 'Dashboard', label: 'ダッシュボード', to: '/dashboards', feature: menuFeature.Dashboard },
  {
    key: 'Report',
    label: 'レポート',
    to: '/medical_institutions_reports',
    feature: menuFeature.Report,
    children: [
      {
        key: 'MedicalInstitutionsReports',
        label: '医療機関レポート',
        to: '/medical_institutions_reports',
        feature: 'medical_institution_report',
      },
      {
        key: 'OwnDepartmentReports',
        label: '自院診療科レポート',
        to: '/own_department_reports',
        feature: 'own_department_report',
      },
      { key: 'AreaReports', label: 'エリアレポート', to: '/area_reports', feature: 'area_report' },
      {
        key: 'CommunicationReports',
        label: 'コミュニケーションレポート',
        to: '/communication_reports',
        feature: 'communication_report',
      },
    ],
  },
  {
    key: 'MedicalInstitutionsSearch',
    label: '連携先管理',
    to: '/medical_institutions_search',
    feature: menuFeature.MedicalInstitutionsSearch,
    alsoActiveOn: ['/crms'],
  },
  { key: 'Vocs', label: '連携先の声', to: '/vocs', feature: menuFeature.Communications },
  { key: 'Communications', label: 'コミュニケーション', to: '/communications', feature: menuFeature.Communications },
  { key: 'Tasks', label: 'タスク', to: '/tasks', feature: menuFeature.Tasks },
  { key: 'ActionLists', label: 'アクションリスト', to: '/action_lists', feature: menuFeature.ActionLists },
  { key: 'Alerts', label: 'アラート', to: '/alerts', feature: menuFeature.Alerts, alsoActiveOn: ['/alert_conditions'] },
  { key: 'Emails', label: 'HTMLメール', to: '/emails', feature: menuFeature.Emails },
  { key: 'Labels', label: 'ラベル管理', to: '/labels', feature: menuFeature.Labels },
  { key: 'Tags', label: 'タグ管理', to: '/tags', feature: menuFeature.Tags },
  { key: 'Accounts', label: 'アカウント管理', to: '/accounts', feature: menuFeature.Accounts, ownerOnly: true },
  { key: 'DataUploads', label: 'データアップロード', to: '/data_uploads', feature: 'data_uploads', ownerOnly: true },
  { key: 'DataSyncStatuses', label: 'データ連携状況', to: '/data_sync_statuses', feature: 'data_uploads' },
];

/**
 * Entries the account may use and whose page exists in this build. A route file added later makes its
 * entry appear without touching the menu.
 */
export function visibleMenu(
  user: MenuUser,
  isAvailable: (path: string) => boolean,
  entries: MenuEntry[] = menuEntries,
): MenuEntry[] {
  const has = new Set(user.features);
  const out: MenuEntry[] = [];
  for (const entry of entries) {
    if (!has.has(entry.feature)) continue;
    if (entry.ownerOnly && user.role !== 'owner') continue;
    if (entry.children) {
      const children = visibleMenu(user, isAvailable, entry.children);
      if (children.length > 0) out.push({ ...entry, to: children[0]!.to, children });
      continue;
    }
    if (isAvailable(entry.to)) out.push(entry);
  }
  return out;
}

export type Viewport = 'phone' | 'tablet' | 'desktop';

/** Spec §9: phone ≤ 599 px, tablet 600–1024, desktop ≥ 1025. */
export function viewportOf(width: number): Viewport {
  if (width <= 599) return 'phone';
  if (width <= 1024) return 'tablet';
  return 'desktop';
}

/**
 * Spec §2: /data_analysis on desktop and tablet, /medical_institutions_search on phones; when that page is
 * missing or not allowed, the first page the account can use, else the personal settings.
 */
export function topPagePath(user: MenuUser, viewport: Viewport, isAvailable: (path: string) => boolean): string {
  const { features } = user;
  const preferred = viewport === 'phone' ? menuFeature.MedicalInstitutionsSearch : menuFeature.DataAnalysis;
  const preferredPath = viewport === 'phone' ? '/medical_institutions_search' : '/data_analysis';
  if (features.includes(preferred) && isAvailable(preferredPath)) return preferredPath;
  const first = visibleMenu(user, isAvailable)[0];
  return first ? first.to : '/profile';
}
