import { formatFraction } from '../../ui/percent.ts';
import type { MedicalInstitutionSortKey, RunningStatus } from '@renkei/contracts';
import type { InstitutionColumnKey } from './search-state.ts';

export const runningStatusLabel: Record<RunningStatus, string> = {
  open: '運営中',
  closed: '廃止',
  suspended: '休止',
  unknown: '不明',
};

export const runningStatusColor: Record<RunningStatus, string> = {
  open: 'teal',
  closed: 'gray',
  suspended: 'orange',
  unknown: 'gray',
};

export const columnLabel: Record<InstitutionColumnKey, string> = {
  name: '医療機関名',
  address: '住所',
  running_status: '運営状況',
  facility_type: '施設区分',
  tags: 'タグ',
  phase: 'フェーズ',
  referral_count: '紹介数',
  rate_of_referral_change: '紹介増減率',
  last_visit_date: '最終訪問日',
  code: '医療機関コード',
  kana: 'カナ',
  tel: '電話番号',
  departments: '診療科',
  comparison_referral_count: '比較期間の紹介数',
};

/** Columns the search endpoint can sort by. */
export const sortKeyOf: Partial<Record<InstitutionColumnKey, MedicalInstitutionSortKey>> = {
  name: 'name',
  kana: 'kana',
  code: 'code',
  address: 'address',
  running_status: 'running_status',
  phase: 'phase',
  referral_count: 'referral_count',
  comparison_referral_count: 'comparison_referral_count',
  rate_of_referral_change: 'rate_of_referral_change',
  last_visit_date: 'last_visit_date',
};

/** A change rate (a fraction, as the search answers it), signed; empty without a base to compare with. */
export const formatRate = (rate: number | null): string => formatFraction(rate, { signed: true, none: '' });
