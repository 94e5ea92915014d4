import { MantineProvider } from '@mantine/core';
import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { DoctorFormModal } from './DoctorFormModal.tsx';

const renderModal = (onSubmit: (body: unknown) => Promise<unknown>) =>
  render(
    <MantineProvider>
      <DoctorFormModal opened doctor={null} onClose={() => {}} onSubmit={onSubmit} />
    </MantineProvider>,
  );

// Typing key by key is slow on a shared machine; the fields are filled in one change each.
describe('doctor form', { timeout: 20_000 }, () => {
  it('refuses a bad email and phone before any request', async () => {
    const onSubmit = vi.fn(async () => {});
    renderModal(onSubmit);
    fireEvent.change(await screen.findByLabelText(/医師名/), { target: { value: '鈴木 一郎' } });
    fireEvent.change(screen.getByLabelText('メールアドレス'), { target: { value: 'not-an-address' } });
    fireEvent.change(screen.getByLabelText('電話番号'), { target: { value: '12345' } });
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('メールアドレスの形式が正しくありません')).toBeInTheDocument();
    expect(screen.getByText(/電話番号の形式が正しくありません/)).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
  });

  it('sends empty contacts as null and shows API 422 messages on their fields', async () => {
    const onSubmit = vi.fn(async () => {
      throw new ApiError(422, '入力内容に誤りがあります。', undefined, [
        { field: 'name', message: '同じ医師がすでに登録されています' },
      ]);
    });
    renderModal(onSubmit);
    fireEvent.change(await screen.findByLabelText(/医師名/), { target: { value: '鈴木 一郎' } });
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('同じ医師がすでに登録されています')).toBeInTheDocument();
    expect(onSubmit).toHaveBeenCalledWith(
      expect.objectContaining({ name: '鈴木 一郎', honorific: '先生', email: null, phone_number: null }),
    );
  });
});
