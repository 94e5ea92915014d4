import { parseInstitutionDismissalEvent } from '@renkei/domain';
import { invalid, type Decider } from '../shared/decider.ts';

export type InstitutionDismissalEvent = ReturnType<typeof parseInstitutionDismissalEvent>;

export interface DismissInstitution {
  institutionCode: string | null;
  institutionName: string | null;
  dismissed: boolean;
}

/** The (code, name) key of a list's institution as the read model keeps it ('' for a missing part). */
const keyOf = (code: string | null, name: string | null) => `${code ?? ''}|${name ?? ''}`;

/**
 * The tenant's set-aside (code, name) pairs, one stream per tenant. Setting aside what is set aside, or
 * putting back what is on the list, changes nothing (a retry or a second tab's click is no new event).
 */
export const institutionDismissalDecider: Decider<Set<string>, DismissInstitution, InstitutionDismissalEvent> = {
  initialState: () => new Set(),
  evolve: (state, event) => {
    const next = new Set(state);
    const key = keyOf(event.data.institution_code, event.data.institution_name);
    if (event.type === 'UnmatchedInstitutionDismissed') next.add(key);
    else next.delete(key);
    return next;
  },
  decide: (state, command) => {
    if (command.institutionCode === null && command.institutionName === null)
      return invalid(
        { field: 'institution_code', message: '医療機関コードか医療機関名を指定してください' },
        { field: 'institution_name', message: '医療機関コードか医療機関名を指定してください' },
      );
    if (state.has(keyOf(command.institutionCode, command.institutionName)) === command.dismissed) return [];
    const data = { institution_code: command.institutionCode, institution_name: command.institutionName };
    return [
      command.dismissed
        ? { type: 'UnmatchedInstitutionDismissed' as const, data }
        : { type: 'UnmatchedInstitutionRestored' as const, data },
    ];
  },
  parse: parseInstitutionDismissalEvent,
};
