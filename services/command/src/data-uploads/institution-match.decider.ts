import { parseInstitutionMatchEvent, type ReferralInstitutionMatched } from '@renkei/domain';
import { invalid, type Decider } from '../shared/decider.ts';

export type InstitutionMatchEvent = ReturnType<typeof parseInstitutionMatchEvent>;

export interface MatchInstitution {
  institutionCode: string | null;
  institutionName: string | null;
  /** An institution of the shared master (the route has checked it exists). */
  medicalInstitutionId: string;
}

/** The (code, name) key of a list's institution as the read model keeps it ('' for a missing part). */
export const keyOf = (code: string | null, name: string | null) => `${code ?? ''}|${name ?? ''}`;

/** A list's institution is named by its code, its name or both; neither names nothing. */
export const namesNothing = (command: { institutionCode: string | null; institutionName: string | null }) =>
  command.institutionCode === null && command.institutionName === null
    ? invalid(
        { field: 'institution_code', message: '医療機関コードか医療機関名を指定してください' },
        { field: 'institution_name', message: '医療機関コードか医療機関名を指定してください' },
      )
    : null;

/** The tenant's hand matches, one stream per tenant: (code, name) → institution; a later match replaces one. */
export const institutionMatchDecider: Decider<Map<string, string>, MatchInstitution, InstitutionMatchEvent> = {
  initialState: () => new Map(),
  evolve: (state, event: { data: ReferralInstitutionMatched }) =>
    new Map(state).set(
      keyOf(event.data.institution_code, event.data.institution_name),
      event.data.medical_institution_id,
    ),
  decide: (state, command) => {
    const refused = namesNothing(command);
    if (refused) return refused;
    if (state.get(keyOf(command.institutionCode, command.institutionName)) === command.medicalInstitutionId) return [];
    return [
      {
        type: 'ReferralInstitutionMatched',
        data: {
          institution_code: command.institutionCode,
          institution_name: command.institutionName,
          medical_institution_id: command.medicalInstitutionId,
        },
      },
    ];
  },
  parse: parseInstitutionMatchEvent,
};
