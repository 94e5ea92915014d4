import type { DataSyncStatuses } from '@renkei/contracts';
import { uploadTypeLabel } from '../data-uploads/components/labels.ts';

type ImportType = DataSyncStatuses['imports'][number]['import_type'];
type ProjectionStatus = DataSyncStatuses['projections'][number]['status'];

const importTypeLabels: Record<ImportType, string> = {
  ...uploadTypeLabel,
  label_values: 'ラベル値インポート',
  communication: 'コミュニケーション取り込み（新規）',
  communication_update: 'コミュニケーション取り込み（更新）',
};

export const importTypeLabel = (type: ImportType): string => importTypeLabels[type];

/** Read models by what a user knows them as; an unknown name (a newer build) shows as it is. */
const readModelLabels: Record<string, string> = {
  medical_institution_crm: '連携先（医療機関・タグ・ラベル）',
  tags: 'タグ',
  communications: 'コミュニケーション',
  tasks: 'タスク',
  referrals: '紹介・逆紹介・入院データ',
  emails: 'HTMLメール',
  label_value_imports: 'ラベル値インポート履歴',
  communication_imports: 'コミュニケーション取り込み履歴',
  visit_rollups: '訪問分析',
  tenant_settings: 'テナント設定',
  vocs: '連携先の声',
};
export const readModelLabel = (name: string): string => readModelLabels[name] ?? name;

export const projectionStatusLabel: Record<ProjectionStatus, { label: string; color: string }> = {
  ok: { label: '最新', color: 'teal' },
  delayed: { label: '反映待ち', color: 'yellow' },
  rebuilding: { label: '再構築中', color: 'blue' },
  stopped: { label: '停止（サポートへ連絡）', color: 'red' },
};
