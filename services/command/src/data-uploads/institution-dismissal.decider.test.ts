import { describe, it } from 'vitest';
import { invalid } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { institutionDismissalDecider } from './institution-dismissal.decider.ts';

const data = { institution_code: null, institution_name: '不明' };
const dismissed = { type: 'UnmatchedInstitutionDismissed' as const, data };
const restored = { type: 'UnmatchedInstitutionRestored' as const, data };
const command = { institutionCode: null, institutionName: '不明', dismissed: true };

describe('setting an unmatched institution aside', () => {
  it('sets a name aside', () => {
    given(institutionDismissalDecider).when(command).then([dismissed]);
  });
  it('changes nothing when it is already set aside', () => {
    given(institutionDismissalDecider, [dismissed]).when(command).then([]);
  });
  it('puts a set-aside name back on the list, and a name on the list needs no putting back', () => {
    given(institutionDismissalDecider, [dismissed])
      .when({ ...command, dismissed: false })
      .then([restored]);
    given(institutionDismissalDecider, [dismissed, restored])
      .when({ ...command, dismissed: false })
      .then([]);
  });
  it('tells a code with that name apart from the name alone', () => {
    given(institutionDismissalDecider, [dismissed])
      .when({ ...command, institutionCode: '2210000000' })
      .then([{ ...dismissed, data: { ...data, institution_code: '2210000000' } }]);
  });
  it('refuses naming neither a code nor a name', () => {
    given(institutionDismissalDecider)
      .when({ ...command, institutionName: null })
      .thenRejected(
        invalid(
          { field: 'institution_code', message: '医療機関コードか医療機関名を指定してください' },
          { field: 'institution_name', message: '医療機関コードか医療機関名を指定してください' },
        ),
      );
  });
});
