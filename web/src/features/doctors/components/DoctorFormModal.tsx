import { Modal, SimpleGrid, Stack, TextInput, Textarea } from '@mantine/core';
import { DoctorInput, type Doctor } from '@renkei/contracts';
import { useEffect, useState } from 'react';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import type { DoctorInputValues } from '../doctors.queries.ts';

interface FormValues {
  name: string;
  honorific: string;
  division: string;
  position: string;
  email: string;
  phone_number: string;
  profile: string;
  memo: string;
}

const blank: FormValues = {
  name: '',
  honorific: '先生',
  division: '',
  position: '',
  email: '',
  phone_number: '',
  profile: '',
  memo: '',
};

function toDoctorInput(v: FormValues): DoctorInputValues {
  return { ...v, email: v.email.trim() || null, phone_number: v.phone_number.trim() || null };
}

/** Client-side check with the contract's own schema, so the messages match the server's. */
function validateDoctor(v: FormValues): Record<string, string> {
  const parsed = DoctorInput.safeParse(toDoctorInput(v));
  const out: Record<string, string> = {};
  if (!parsed.success) for (const issue of parsed.error.issues) out[String(issue.path[0])] ??= issue.message;
  return out;
}

export interface DoctorFormModalProps {
  opened: boolean;
  doctor: Doctor | null;
  onClose: () => void;
  onSubmit: (body: DoctorInputValues) => Promise<unknown>;
}

export function DoctorFormModal({ opened, doctor, onClose, onSubmit }: DoctorFormModalProps) {
  const [values, setValues] = useState<FormValues>(blank);
  const { errors, setErrors, saving, submit } = useFormSubmit({
    values,
    validate: validateDoctor,
    save: (v) => onSubmit(toDoctorInput(v)),
  });

  useEffect(() => {
    if (!opened) return;
    setErrors({});
    setValues(
      doctor
        ? {
            name: doctor.name,
            honorific: doctor.honorific,
            division: doctor.division,
            position: doctor.position,
            email: doctor.email ?? '',
            phone_number: doctor.phone_number ?? '',
            profile: doctor.profile,
            memo: doctor.memo,
          }
        : blank,
    );
  }, [opened, doctor, setErrors]);

  const field = (key: keyof FormValues) => ({
    value: values[key],
    error: errors[key],
    onChange: (e: { currentTarget: { value: string } }) => {
      const value = e.currentTarget.value;
      setValues((v) => ({ ...v, [key]: value }));
    },
  });

  return (
    <Modal opened={opened} onClose={onClose} title={doctor ? '医師を編集' : '医師を登録'} centered size="lg">
      <form onSubmit={(e) => void submit(e)} noValidate data-testid="doctor-form">
        <Stack gap="sm">
          <SimpleGrid cols={{ base: 1, sm: 2 }} spacing="sm">
            <TextInput label="医師名" required {...field('name')} data-autofocus />
            <TextInput label="敬称" {...field('honorific')} />
            <TextInput label="診療科・所属" {...field('division')} />
            <TextInput label="役職" {...field('position')} />
            <TextInput label="メールアドレス" type="email" {...field('email')} />
            <TextInput label="電話番号" placeholder="03-1234-5678" {...field('phone_number')} />
          </SimpleGrid>
          <Textarea label="プロフィール" autosize minRows={2} {...field('profile')} />
          <Textarea label="メモ" autosize minRows={2} {...field('memo')} />
          <SaveCancelButtons saving={saving} onCancel={onClose} />
        </Stack>
      </form>
    </Modal>
  );
}
