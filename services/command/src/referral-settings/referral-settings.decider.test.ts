import { describe, it } from 'vitest';
import type { SegmentationSettingInput } from '@renkei/contracts';
import { invalid } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import {
  defaultSegmentationSetting,
  referralAdmissionPeriodDecider,
  segmentationSettingDecider,
  segmentWithoutCondition,
} from './referral-settings.decider.ts';

const surgery = '00000000-0000-4000-8000-000000000001';
const newSegment = '00000000-0000-4000-8000-0000000000a1';
const input: SegmentationSettingInput = {
  rest_segment_label: 'その他',
  excluded_own_department_ids: [surgery],
  segments: [
    { id: null, label: '重点', priority: 2, referral_count_more_equal: 10, referral_admission_rate_more_equal: 30 },
  ],
};
const command = {
  type: 'ReplaceSegmentationSetting' as const,
  input,
  ownDepartmentIds: new Set([surgery]),
  newId: () => newSegment,
};
const saved = {
  type: 'SegmentationSettingReplaced' as const,
  data: {
    rest_segment_label: 'その他',
    excluded_own_department_ids: [surgery],
    segments: [
      {
        id: newSegment,
        label: '重点',
        priority: 2,
        referral_count_more_equal: 10,
        referral_admission_rate_more_equal: 30,
      },
    ],
  },
};

describe('segmentation setting', () => {
  it('starts with no segments and the rest label その他', () => {
    given(segmentationSettingDecider)
      .when({ ...command, input: { ...defaultSegmentationSetting, segments: [] } })
      .then([]);
  });
  it('saves the setting, giving new segments an id', () => {
    given(segmentationSettingDecider).when(command).then([saved]);
  });
  it('keeps a segment’s id when it is sent back, and orders the segments by priority', () => {
    given(segmentationSettingDecider, [saved])
      .when({
        ...command,
        input: {
          ...input,
          segments: [
            { ...input.segments[0]!, id: newSegment, label: '最重点' },
            {
              id: null,
              label: '新規',
              priority: 1,
              referral_count_more_equal: 1,
              referral_admission_rate_more_equal: null,
            },
          ],
        },
        newId: () => '00000000-0000-4000-8000-0000000000a2',
      })
      .then([
        {
          type: 'SegmentationSettingReplaced',
          data: {
            ...saved.data,
            segments: [
              {
                id: '00000000-0000-4000-8000-0000000000a2',
                label: '新規',
                priority: 1,
                referral_count_more_equal: 1,
                referral_admission_rate_more_equal: null,
              },
              { ...saved.data.segments[0]!, label: '最重点' },
            ],
          },
        },
      ]);
  });
  it('writes nothing when nothing changed', () => {
    given(segmentationSettingDecider, [saved])
      .when({ ...command, input: { ...input, segments: [{ ...input.segments[0]!, id: newSegment }] } })
      .then([]);
  });
  it('refuses a department that is not one of the tenant’s own, and an unknown segment id', () => {
    given(segmentationSettingDecider)
      .when({
        ...command,
        ownDepartmentIds: new Set<string>(),
        input: { ...input, segments: [{ ...input.segments[0]!, id: newSegment }] },
      })
      .thenRejected(
        invalid(
          { field: 'excluded_own_department_ids.0', message: '自院の診療科が見つかりません' },
          { field: 'segments.0.id', message: 'セグメントが見つかりません' },
        ),
      );
  });
  it('refuses a segment without a condition, which would take every institution before the ones after it', () => {
    const open = { id: null, label: '全部', referral_count_more_equal: null, referral_admission_rate_more_equal: null };
    given(segmentationSettingDecider)
      .when({
        ...command,
        input: {
          ...input,
          segments: [
            { ...open, priority: 1 },
            { ...input.segments[0]!, priority: 2 },
            // One condition is enough: a rate alone, a count alone.
            { ...open, label: '入院率', priority: 3, referral_admission_rate_more_equal: 50 },
            { ...open, label: '件数', priority: 4, referral_count_more_equal: 1 },
          ],
        },
      })
      .thenRejected(invalid({ field: 'segments.0.referral_count_more_equal', message: segmentWithoutCondition }));
  });
});

describe('referral admission period', () => {
  it('changes the period from the default 90 days', () => {
    given(referralAdmissionPeriodDecider)
      .when({ type: 'ChangeReferralAdmissionPeriod', days: 60 })
      .then([{ type: 'ReferralAdmissionPeriodChanged', data: { days: 60 } }]);
  });
  it('writes nothing for the period it already has', () => {
    given(referralAdmissionPeriodDecider).when({ type: 'ChangeReferralAdmissionPeriod', days: 90 }).then([]);
    given(referralAdmissionPeriodDecider, [
      { type: 'ReferralAdmissionPeriodChanged', data: { days: 60 } },
      {
        type: 'ReferralStaysRelinkRequested',
        data: { change_id: '00000000-0000-4000-8000-000000000009', bucket: 0, buckets: 16 },
      },
    ])
      .when({ type: 'ChangeReferralAdmissionPeriod', days: 60 })
      .then([]);
  });
});
