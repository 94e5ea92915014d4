import type { DoctorInput } from '@renkei/contracts';
import { parseDoctorEvent, stableJson, type DoctorFields } from '@renkei/domain';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';

export type DoctorEvent = ReturnType<typeof parseDoctorEvent>;

export interface DoctorState {
  status: 'absent' | 'active' | 'removed';
  fields: DoctorFields | null;
}

export type DoctorCommand =
  | { type: 'AddDoctor'; doctorId: string; medicalInstitutionId: string; input: DoctorInput }
  | { type: 'UpdateDoctor'; doctorId: string; medicalInstitutionId: string; input: DoctorInput }
  | { type: 'RemoveDoctor'; doctorId: string; medicalInstitutionId: string };

function evolveDoctor(state: DoctorState, event: DoctorEvent): DoctorState {
  switch (event.type) {
    case 'DoctorAdded':
    case 'DoctorUpdated':
      return { status: 'active', fields: event.data };
    case 'DoctorRemoved':
      return { ...state, status: 'removed' };
    default: {
      const never: never = event;
      return never;
    }
  }
}

const fieldsOf = (doctorId: string, medicalInstitutionId: string, input: DoctorInput): DoctorFields => ({
  doctor_id: doctorId,
  medical_institution_id: medicalInstitutionId,
  name: input.name,
  division: input.division,
  position: input.position,
  honorific: input.honorific,
  email: input.email,
  phone_number: input.phone_number,
  profile: input.profile,
  memo: input.memo,
});

/** A doctor of another institution is not found under this one. */
const isHere = (state: DoctorState, medicalInstitutionId: string) =>
  state.status === 'active' && state.fields?.medical_institution_id === medicalInstitutionId;

function decideDoctor(state: DoctorState, command: DoctorCommand): Decision<DoctorEvent> {
  switch (command.type) {
    case 'AddDoctor':
      if (state.status !== 'absent') return invalid({ field: 'id', message: 'この医師は既に登録されています' });
      return [{ type: 'DoctorAdded', data: fieldsOf(command.doctorId, command.medicalInstitutionId, command.input) }];
    case 'UpdateDoctor': {
      if (!isHere(state, command.medicalInstitutionId)) return notFound();
      const fields = fieldsOf(command.doctorId, command.medicalInstitutionId, command.input);
      // Saving the same values again is not a change: no event, no new version.
      if (stableJson(state.fields) === stableJson(fields)) return [];
      return [{ type: 'DoctorUpdated', data: fields }];
    }
    case 'RemoveDoctor':
      if (!isHere(state, command.medicalInstitutionId)) return notFound();
      return [
        {
          type: 'DoctorRemoved',
          data: {
            doctor_id: command.doctorId,
            medical_institution_id: command.medicalInstitutionId,
            name: state.fields!.name,
          },
        },
      ];
    default: {
      const never: never = command;
      return never;
    }
  }
}

export const doctorDecider: Decider<DoctorState, DoctorCommand, DoctorEvent> = {
  initialState: () => ({ status: 'absent', fields: null }),
  evolve: evolveDoctor,
  decide: decideDoctor,
  parse: parseDoctorEvent,
};
