import { parseReferralEntryEvent, type ReferralFact, type ReverseReferralFact } from '@renkei/domain';
import { invalid, notFound, type Decider } from '../shared/decider.ts';

export type ReferralEntryEvent = ReturnType<typeof parseReferralEntryEvent>;

/** `today`: the Japanese calendar day of the request (YYYY-MM-DD); an entry may not be dated after it. */
export type EnterReferral =
  | { type: 'EnterReferral'; id: string; referral: ReferralFact; ownDepartmentIds: ReadonlySet<string>; today: string }
  | {
      type: 'EnterReverseReferral';
      id: string;
      reverseReferral: ReverseReferralFact;
      ownDepartmentIds: ReadonlySet<string>;
      today: string;
    }
  | {
      type: 'UpdateReferral';
      id: string;
      referral: ReferralFact;
      ownDepartmentIds: ReadonlySet<string>;
      today: string;
    }
  | {
      type: 'UpdateReverseReferral';
      id: string;
      reverseReferral: ReverseReferralFact;
      ownDepartmentIds: ReadonlySet<string>;
      today: string;
    }
  | { type: 'DeleteEntry'; kind: 'referral' | 'reverse'; medicalInstitutionId: string };

export type ReferralEntryState =
  | { entered: false }
  | { entered: true; deleted: boolean; kind: 'referral'; fact: ReferralFact }
  | { entered: true; deleted: boolean; kind: 'reverse'; fact: ReverseReferralFact };

const evolve = (state: ReferralEntryState, event: ReferralEntryEvent): ReferralEntryState => {
  switch (event.type) {
    case 'ReferralEntered':
    case 'ReferralEntryUpdated':
      return { entered: true, deleted: false, kind: 'referral', fact: event.data.referral };
    case 'ReverseReferralEntered':
    case 'ReverseReferralEntryUpdated':
      return { entered: true, deleted: false, kind: 'reverse', fact: event.data.reverse_referral };
    case 'ReferralEntryDeleted':
    case 'ReverseReferralEntryDeleted':
      return state.entered ? { ...state, deleted: true } : state;
  }
};

/** The live entry of that kind at that institution (the path names both), else nothing to act on. */
const liveEntry = (state: ReferralEntryState, kind: 'referral' | 'reverse', institutionId: string) =>
  state.entered && !state.deleted && state.kind === kind && state.fact.medical_institution_id === institutionId
    ? state
    : null;

/**
 * One entry per stream: entered once (a retry writes nothing), then corrected or withdrawn by hand.
 * The department must be one of the tenant's own (a fact the route reads). Only hand entries have a
 * stream, so an imported row is never found here: the files own it.
 */
export const referralEntryDecider: Decider<ReferralEntryState, EnterReferral, ReferralEntryEvent> = {
  initialState: () => ({ entered: false }),
  evolve,
  decide: (state, command) => {
    switch (command.type) {
      case 'EnterReferral':
      case 'UpdateReferral': {
        if (command.type === 'EnterReferral' && state.entered) return [];
        if (
          command.type === 'UpdateReferral' &&
          !liveEntry(state, 'referral', command.referral.medical_institution_id!)
        )
          return notFound();
        // A referral received on a day to come cannot be: a year or month mistyped in the date picker, which
        // would hide it in a month the figures do not show yet.
        if (command.referral.referral_date > command.today)
          return invalid({ field: 'referral_date', message: '紹介日に今日より後の日付は入力できません' });
        const department = command.referral.own_department_id;
        if (department !== null && !command.ownDepartmentIds.has(department))
          return invalid({ field: 'own_department_id', message: '自院の診療科が見つかりません' });
        if (command.type === 'EnterReferral')
          return [{ type: 'ReferralEntered', data: { referral_id: command.id, referral: command.referral } }];
        if (JSON.stringify(state.entered && state.fact) === JSON.stringify(command.referral)) return [];
        return [{ type: 'ReferralEntryUpdated', data: { referral_id: command.id, referral: command.referral } }];
      }
      case 'EnterReverseReferral':
      case 'UpdateReverseReferral': {
        if (command.type === 'EnterReverseReferral' && state.entered) return [];
        if (
          command.type === 'UpdateReverseReferral' &&
          !liveEntry(state, 'reverse', command.reverseReferral.medical_institution_id!)
        )
          return notFound();
        if (command.reverseReferral.reverse_referral_date > command.today)
          return invalid({ field: 'reverse_referral_date', message: '逆紹介日に今日より後の日付は入力できません' });
        const department = command.reverseReferral.own_department_id;
        if (department !== null && !command.ownDepartmentIds.has(department))
          return invalid({ field: 'specialty_id', message: '自院の診療科が見つかりません' });
        const data = { reverse_referral_id: command.id, reverse_referral: command.reverseReferral };
        if (command.type === 'EnterReverseReferral') return [{ type: 'ReverseReferralEntered', data }];
        if (JSON.stringify(state.entered && state.fact) === JSON.stringify(command.reverseReferral)) return [];
        return [{ type: 'ReverseReferralEntryUpdated', data }];
      }
      case 'DeleteEntry': {
        const entry = liveEntry(state, command.kind, command.medicalInstitutionId);
        if (!entry) return notFound();
        const id = entry.fact.identity.slice('manual:'.length);
        return entry.kind === 'referral'
          ? [{ type: 'ReferralEntryDeleted', data: { referral_id: id } }]
          : [{ type: 'ReverseReferralEntryDeleted', data: { reverse_referral_id: id } }];
      }
    }
  },
  parse: parseReferralEntryEvent,
};
