import { describe, it } from 'vitest';
import type { DoctorInput } from '@renkei/contracts';
import { notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { doctorDecider } from './doctor.decider.ts';

const doctorId = '0f8fad5b-d9cb-469f-a165-70867728950e';
const here = '11111111-1111-4111-8111-111111111111';
const elsewhere = '22222222-2222-4222-8222-222222222222';
const input: DoctorInput = {
  name: '山田 太郎',
  division: '内科',
  position: '部長',
  honorific: '先生',
  email: null,
  phone_number: null,
  profile: '',
  memo: '',
};
const fields = { doctor_id: doctorId, medical_institution_id: here, ...input };
const added = { type: 'DoctorAdded', data: fields };

describe('doctor decider', () => {
  it('adds a doctor to an institution', () => {
    given(doctorDecider)
      .when({ type: 'AddDoctor', doctorId, medicalInstitutionId: here, input })
      .then([{ type: 'DoctorAdded', data: fields }]);
  });

  it('updates a doctor, and records nothing when nothing changes', () => {
    given(doctorDecider, [added])
      .when({ type: 'UpdateDoctor', doctorId, medicalInstitutionId: here, input: { ...input, position: '院長' } })
      .then([{ type: 'DoctorUpdated', data: { ...fields, position: '院長' } }]);
    given(doctorDecider, [added]).when({ type: 'UpdateDoctor', doctorId, medicalInstitutionId: here, input }).then([]);
  });

  it('removes a doctor, keeping the name for the history', () => {
    given(doctorDecider, [added])
      .when({ type: 'RemoveDoctor', doctorId, medicalInstitutionId: here })
      .then([
        { type: 'DoctorRemoved', data: { doctor_id: doctorId, medical_institution_id: here, name: '山田 太郎' } },
      ]);
  });

  it('does not find a doctor under another institution, a removed one or an unknown one', () => {
    given(doctorDecider, [added])
      .when({ type: 'UpdateDoctor', doctorId, medicalInstitutionId: elsewhere, input })
      .thenRejected(notFound());
    const removed = { type: 'DoctorRemoved', data: { doctor_id: doctorId, medical_institution_id: here, name: 'x' } };
    given(doctorDecider, [added, removed])
      .when({ type: 'RemoveDoctor', doctorId, medicalInstitutionId: here })
      .thenRejected(notFound());
    given(doctorDecider).when({ type: 'RemoveDoctor', doctorId, medicalInstitutionId: here }).thenRejected(notFound());
  });
});
