import { Badge, Tooltip } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useServices } from '../../../app/services-context.tsx';
import { referralSettingQueries } from '../referral-settings.queries.ts';
import { formatPercent } from '../../../ui/percent.ts';

/**
 * The institution's referral admission segment (all own departments), with the figures it was
 * judged on: the last twelve whole months' referrals and the share of them followed by a stay.
 */
export function InstitutionSegmentBadge({ id }: { id: string }) {
  const { api } = useServices();
  const segments = useQuery(referralSettingQueries.institutionSegments(api, id));
  const all = segments.data?.find((s) => s.own_department_id === null);
  if (!all) return null;
  const rate = formatPercent(all.referral_admission_rate);
  return (
    <Tooltip label={`直近12か月：紹介 ${all.referral_count}件・入院率 ${rate}`}>
      <Badge size="sm" variant="outline" color={all.segment_id ? 'teal' : 'gray'} data-testid="crm-segment">
        セグメント：{all.segment_label}
      </Badge>
    </Tooltip>
  );
}
