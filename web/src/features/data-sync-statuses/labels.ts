import { readModelLabels, type DataSyncStatuses } from '@renkei/contracts';
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

/** An unknown name (a newer build) shows as it is. */
export const readModelLabel = (name: string): string => readModelLabels[name] ?? name;

export const projectionStatusLabel: Record<ProjectionStatus, { label: string; color: string }> = {
  ok: { label: '最新', color: 'teal' },
  delayed: { label: '反映待ち', color: 'yellow' },
  rebuilding: { label: '再構築中', color: 'blue' },
  stopped: { label: '停止（サポートへ連絡）', color: 'red' },
};
