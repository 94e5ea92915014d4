import { describe, it } from 'vitest';
import { invalid } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { institutionMatchDecider } from './institution-match.decider.ts';

const clinic = '00000000-0000-4000-8000-000000000001';
const other = '00000000-0000-4000-8000-000000000002';
const matched = (id: string) => ({
  type: 'ReferralInstitutionMatched' as const,
  data: { institution_code: null, institution_name: 'みなと内科', medical_institution_id: id },
});
const command = { institutionCode: null, institutionName: 'みなと内科', medicalInstitutionId: clinic };

describe('institution match', () => {
  it('remembers a match of a name', () => {
    given(institutionMatchDecider)
      .when(command)
      .then([matched(clinic)]);
  });
  it('changes nothing when the name is already matched to that institution', () => {
    given(institutionMatchDecider, [matched(clinic)])
      .when(command)
      .then([]);
  });
  it('re-points a match to another institution', () => {
    given(institutionMatchDecider, [matched(clinic)])
      .when({ ...command, medicalInstitutionId: other })
      .then([matched(other)]);
  });
  it('refuses a match naming neither a code nor a name', () => {
    given(institutionMatchDecider)
      .when({ ...command, institutionName: null })
      .thenRejected(
        invalid(
          { field: 'institution_code', message: '医療機関コードか医療機関名を指定してください' },
          { field: 'institution_name', message: '医療機関コードか医療機関名を指定してください' },
        ),
      );
  });
});
