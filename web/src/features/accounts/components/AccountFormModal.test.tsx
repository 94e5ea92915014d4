import { describe, expect, it, vi } from 'vitest';
import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ApiError } from '../../../api/api-errors.ts';
import { toAccountInput, type AccountFormValues } from '../account-form.ts';
import { AccountFormModal } from './AccountFormModal.tsx';

const renderModal = (onSubmit: (v: AccountFormValues) => Promise<unknown>) =>
  render(
    <MantineProvider>
      <AccountFormModal opened account={null} onClose={() => {}} onSubmit={onSubmit} />
    </MantineProvider>,
  );

describe('account invitation form', () => {
  it('invites by email without a password and shows the API 422 messages on their fields', async () => {
    const onSubmit = vi.fn(async (_: AccountFormValues) => {
      throw new ApiError(422, '入力内容に誤りがあります。', undefined, [
        { field: 'base', message: 'アカウント数の上限（5件）に達しています' },
      ]);
    });
    renderModal(onSubmit);
    await userEvent.type(await screen.findByLabelText(/氏名/), '山田 太郎');
    await userEvent.type(screen.getByLabelText(/メールアドレス/), 'yamada@example.jp');
    expect(screen.queryByLabelText(/初期パスワード/)).not.toBeInTheDocument();
    expect(screen.getByText(/登録用のリンク（7日間有効）を送ります/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('アカウント数の上限（5件）に達しています')).toBeInTheDocument();
    expect(toAccountInput(onSubmit.mock.calls[0]![0], true)).toEqual({
      username: '山田 太郎',
      email: 'yamada@example.jp',
      login_name: null,
      role: 'member',
      enabled_crm: true,
      enabled_mc_map: false,
    });
  });

  it('asks for an initial password when the account has only a login name', async () => {
    const onSubmit = vi.fn(async (_: AccountFormValues) => undefined);
    renderModal(onSubmit);
    await userEvent.type(await screen.findByLabelText(/氏名/), '佐藤 花子');
    await userEvent.type(screen.getByLabelText(/ログインID/), 'sato');
    await userEvent.type(screen.getByLabelText(/初期パスワード/), 'sato-pass-1');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(toAccountInput(onSubmit.mock.calls[0]![0], true)).toMatchObject({
      email: null,
      login_name: 'sato',
      password: 'sato-pass-1',
    });
  });
});
