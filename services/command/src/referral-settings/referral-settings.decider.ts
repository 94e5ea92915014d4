import type { SegmentationSettingInput } from '@renkei/contracts';
import {
  parseSegmentationSettingEvent,
  parseReferralAdmissionPeriodEvent,
  defaultReferralAdmissionPeriodDays,
  type SegmentationSettingReplaced,
} from '@renkei/domain';
import { invalid, type Decider } from '../shared/decider.ts';

export type SegmentationSettingEvent = ReturnType<typeof parseSegmentationSettingEvent>;

/** The setting a tenant has before any save: no segments, every institution in the rest. */
export const defaultSegmentationSetting: SegmentationSettingReplaced = {
  rest_segment_label: 'その他',
  excluded_own_department_ids: [],
  segments: [],
};

export const segmentWithoutCondition =
  '紹介件数か入院率のどちらかを入力してください（条件のないセグメントにはすべての医療機関が入ります）';

export interface ReplaceSegmentationSetting {
  type: 'ReplaceSegmentationSetting';
  input: SegmentationSettingInput;
  /** The tenant's own departments (read by the route): an excluded department must be one of them. */
  ownDepartmentIds: ReadonlySet<string>;
  newId: () => string;
}

/**
 * The whole setting is replaced at each save. A segment keeps its id across saves (the client sends
 * it back), so a label change does not make another segment; an id the setting never had is refused.
 */
export const segmentationSettingDecider: Decider<
  SegmentationSettingReplaced,
  ReplaceSegmentationSetting,
  SegmentationSettingEvent
> = {
  initialState: () => defaultSegmentationSetting,
  evolve: (_state, event) => event.data,
  decide: (state, command) => {
    const { input } = command;
    const known = new Set(state.segments.map((s) => s.id));
    const errors = [
      ...input.excluded_own_department_ids.flatMap((id, i) =>
        command.ownDepartmentIds.has(id)
          ? []
          : [{ field: `excluded_own_department_ids.${i}`, message: '自院の診療科が見つかりません' }],
      ),
      ...input.segments.flatMap((s, i) =>
        s.id === null || known.has(s.id) ? [] : [{ field: `segments.${i}.id`, message: 'セグメントが見つかりません' }],
      ),
      // A segment without a condition takes every institution: the segments after it and the rest label
      // would never be reached, which is the rest label's work anyway.
      ...input.segments.flatMap((s, i) =>
        s.referral_count_more_equal === null && s.referral_admission_rate_more_equal === null
          ? [{ field: `segments.${i}.referral_count_more_equal`, message: segmentWithoutCondition }]
          : [],
      ),
    ];
    if (errors.length > 0) return invalid(...errors);
    const next: SegmentationSettingReplaced = {
      rest_segment_label: input.rest_segment_label,
      excluded_own_department_ids: [...new Set(input.excluded_own_department_ids)],
      segments: [...input.segments]
        .sort((a, b) => a.priority - b.priority)
        .map((s) => ({
          id: s.id ?? command.newId(),
          label: s.label,
          priority: s.priority,
          referral_count_more_equal: s.referral_count_more_equal,
          referral_admission_rate_more_equal: s.referral_admission_rate_more_equal,
        })),
    };
    if (JSON.stringify(next) === JSON.stringify(state)) return [];
    return [{ type: 'SegmentationSettingReplaced', data: next }];
  },
  parse: parseSegmentationSettingEvent,
};

export type ReferralAdmissionPeriodEvent = ReturnType<typeof parseReferralAdmissionPeriodEvent>;

/**
 * The days after a referral within which a stay follows it. A change is one event; the re-link of the
 * tenant's stays that it calls for is appended by the worker to a stream of its own, so this stream's
 * revision stays the version an owner's next save is checked against.
 */
export const referralAdmissionPeriodDecider: Decider<
  { days: number },
  { type: 'ChangeReferralAdmissionPeriod'; days: number },
  ReferralAdmissionPeriodEvent
> = {
  initialState: () => ({ days: defaultReferralAdmissionPeriodDays }),
  evolve: (state, event) => (event.type === 'ReferralAdmissionPeriodChanged' ? { days: event.data.days } : state),
  decide: (state, command) =>
    state.days === command.days ? [] : [{ type: 'ReferralAdmissionPeriodChanged', data: { days: command.days } }],
  parse: parseReferralAdmissionPeriodEvent,
};
