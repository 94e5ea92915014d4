import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { ReferralEntryForm } from './ReferralEntryForm.tsx';

const clinic = '00000000-0000-4000-8000-000000000009';

function renderForm(
  create: (args: unknown) => Promise<unknown>,
  props: Partial<Parameters<typeof ReferralEntryForm>[0]> = {},
) {
  const api = {
    listOwnDepartments: vi.fn(async () => []),
    createMedicalInstitutionReferral: vi.fn(create),
    createMedicalInstitutionReverseReferral: vi.fn(create),
    updateMedicalInstitutionReferral: vi.fn(create),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <ReferralEntryForm id={clinic} {...props} />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return api;
}

describe('referral entry form', () => {
  it('asks for the date and the patient before sending', async () => {
    const api = renderForm(async () => ({}));
    await userEvent.click(screen.getByTestId('referral-entry-save'));
    expect(await screen.findByText('日付を入力してください')).toBeInTheDocument();
    expect(screen.getByText('患者IDを入力してください')).toBeInTheDocument();
    expect(api.createMedicalInstitutionReferral).not.toHaveBeenCalled();
  });

  it('refuses a date after today before sending, and offers no later day in the picker', async () => {
    const api = renderForm(async () => ({}));
    const date = screen.getByLabelText(/紹介日/);
    expect(date).toHaveAttribute('max', new Date(Date.now() + 9 * 3_600_000).toISOString().slice(0, 10));
    fireEvent.change(date, { target: { value: '2099-04-01' } });
    await userEvent.type(screen.getByLabelText(/患者ID/), '1');
    await userEvent.click(screen.getByTestId('referral-entry-save'));
    expect(await screen.findByText('紹介日に今日より後の日付は入力できません')).toBeInTheDocument();
    await userEvent.click(screen.getByText('逆紹介'));
    fireEvent.change(screen.getByLabelText(/逆紹介日/), { target: { value: '2099-04-01' } });
    await userEvent.click(screen.getByTestId('referral-entry-save'));
    expect(await screen.findByText('逆紹介日に今日より後の日付は入力できません')).toBeInTheDocument();
    expect(api.createMedicalInstitutionReferral).not.toHaveBeenCalled();
    expect(api.createMedicalInstitutionReverseReferral).not.toHaveBeenCalled();
  });

  it('sends a referral of the institution and clears the form; a 422 shows on its field', async () => {
    const api = renderForm(async () => ({}));
    fireEvent.change(screen.getByLabelText(/紹介日/), { target: { value: '2026-04-01' } });
    await userEvent.type(screen.getByLabelText(/患者ID/), '00123');
    await userEvent.type(screen.getByLabelText('紹介目的'), '精査');
    await userEvent.click(screen.getByTestId('referral-entry-save'));
    await waitFor(() =>
      expect(api.createMedicalInstitutionReferral).toHaveBeenCalledWith({
        params: { id: clinic },
        body: {
          referral_date: '2026-04-01',
          patient_id: '00123',
          own_department_id: null,
          doctor_name_from: null,
          reason_for_presenting: '精査',
        },
      }),
    );
    await waitFor(() => expect(screen.getByLabelText(/患者ID/)).toHaveValue(''));

    api.createMedicalInstitutionReverseReferral.mockRejectedValueOnce(
      new ApiError(422, '入力内容を確認してください', undefined, [
        { field: 'reverse_referral_date', message: '逆紹介日はYYYY-MM-DD形式で入力してください' },
      ]),
    );
    await userEvent.click(screen.getByText('逆紹介'));
    fireEvent.change(screen.getByLabelText(/逆紹介日/), { target: { value: '2026-04-02' } });
    await userEvent.type(screen.getByLabelText(/患者ID/), '7');
    await userEvent.click(screen.getByTestId('referral-entry-save'));
    expect(await screen.findByText('逆紹介日はYYYY-MM-DD形式で入力してください')).toBeInTheDocument();
  });

  it('corrects a referral entered by hand with the whole entry, keeping what the form does not show', async () => {
    const onDone = vi.fn();
    const editing = {
      id: '00000000-0000-4000-8000-000000000077',
      referral_date: '2026-04-01',
      patient_id: '00123',
      doctor_name_to: '佐藤',
      doctor_name_from: null,
      reason_for_presenting: null,
      referral_department: null,
      referral_department_as_written: null,
      hospital_admissions: [],
      reverse_referral: null,
      entered_by_hand: true,
    };
    const api = renderForm(async () => ({}), { editing, onDone });
    expect(screen.queryByText('逆紹介')).not.toBeInTheDocument();
    const patient = screen.getByLabelText(/患者ID/);
    await userEvent.clear(patient);
    await userEvent.type(patient, '00124');
    await userEvent.click(screen.getByTestId('referral-entry-save'));
    await waitFor(() =>
      expect(api.updateMedicalInstitutionReferral).toHaveBeenCalledWith({
        params: { medical_institution_id: clinic, id: editing.id },
        body: {
          referral_date: '2026-04-01',
          patient_id: '00124',
          own_department_id: null,
          doctor_name_from: null,
          doctor_name_to: '佐藤',
          reason_for_presenting: null,
        },
      }),
    );
    await waitFor(() => expect(onDone).toHaveBeenCalled());
  });
});
