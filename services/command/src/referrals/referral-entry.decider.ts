import { parseReferralEntryEvent, type ReferralFact, type ReverseReferralFact } from '@renkei/domain';
import { invalid, type Decider } from '../shared/decider.ts';

export type ReferralEntryEvent = ReturnType<typeof parseReferralEntryEvent>;

export type EnterReferral =
  | { type: 'EnterReferral'; id: string; referral: ReferralFact; ownDepartmentIds: ReadonlySet<string> }
  | {
      type: 'EnterReverseReferral';
      id: string;
      reverseReferral: ReverseReferralFact;
      ownDepartmentIds: ReadonlySet<string>;
    };

/** One entry per stream, written once; the department must be one of the tenant's own (a fact the route reads). */
export const referralEntryDecider: Decider<{ entered: boolean }, EnterReferral, ReferralEntryEvent> = {
  initialState: () => ({ entered: false }),
  evolve: () => ({ entered: true }),
  decide: (state, command) => {
    if (state.entered) return [];
    if (command.type === 'EnterReferral') {
      const department = command.referral.own_department_id;
      if (department !== null && !command.ownDepartmentIds.has(department))
        return invalid({ field: 'own_department_id', message: '自院の診療科が見つかりません' });
      return [{ type: 'ReferralEntered', data: { referral_id: command.id, referral: command.referral } }];
    }
    const department = command.reverseReferral.own_department_id;
    if (department !== null && !command.ownDepartmentIds.has(department))
      return invalid({ field: 'specialty_id', message: '自院の診療科が見つかりません' });
    return [
      {
        type: 'ReverseReferralEntered',
        data: { reverse_referral_id: command.id, reverse_referral: command.reverseReferral },
      },
    ];
  },
  parse: parseReferralEntryEvent,
};
