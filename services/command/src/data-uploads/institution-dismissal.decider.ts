import { parseInstitutionDismissalEvent } from '@renkei/domain';
import type { Decider } from '../shared/decider.ts';
import { keyOf, namesNothing } from './institution-match.decider.ts';

export type InstitutionDismissalEvent = ReturnType<typeof parseInstitutionDismissalEvent>;

export interface DismissInstitution {
  institutionCode: string | null;
  institutionName: string | null;
  dismissed: boolean;
}

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
    const refused = namesNothing(command);
    if (refused) return refused;
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
