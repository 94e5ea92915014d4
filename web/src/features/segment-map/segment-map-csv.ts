import type { CsvEncoding, SegmentMapInstitution, SegmentMapSegment } from '@renkei/contracts';
import { type ExportTable, saveCsv } from '../../ui/table-export.ts';

const columns = [
  { key: 'segment', label: 'セグメント' },
  { key: 'name', label: '医療機関名' },
  { key: 'address', label: '住所' },
  { key: 'referral_count', label: '紹介数' },
  { key: 'referral_admission_rate', label: '入院率(%)' },
  { key: 'latitude', label: '緯度' },
  { key: 'longitude', label: '経度' },
];

/** The list beside the map as a table, in its order: segments by priority, most referrals first within one. */
function segmentMapTable(
  segments: readonly SegmentMapSegment[],
  rows: readonly SegmentMapInstitution[],
  period: { from: string; to: string },
): ExportTable {
  return {
    name: `診療圏分析_${period.from}_${period.to}`,
    columns,
    rows: segments.flatMap((s) =>
      rows
        .filter((r) => r.segment_id === s.segment_id)
        .map((r) => ({
          segment: s.label,
          name: r.name,
          address: r.address,
          referral_count: r.referral_count,
          referral_admission_rate: r.referral_admission_rate,
          latitude: r.latitude,
          longitude: r.longitude,
        })),
    ),
  };
}

/** The map's institutions (one answer holds them all) saved as CSV. */
export function saveSegmentMapCsv(
  segments: readonly SegmentMapSegment[],
  rows: readonly SegmentMapInstitution[],
  period: { from: string; to: string },
  encoding: CsvEncoding,
): void {
  saveCsv(segmentMapTable(segments, rows, period), encoding);
}
