import { describe, expect, it, vi } from 'vitest';
import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ApiError } from '../../../api/api-errors.ts';
import { TagFormModal } from './TagFormModal.tsx';

const renderModal = (onSubmit: (v: unknown) => Promise<unknown>) =>
  render(
    <MantineProvider>
      <TagFormModal opened tag={null} groupNames={['地域']} onClose={() => {}} onSubmit={onSubmit} />
    </MantineProvider>,
  );

describe('tag form', () => {
  it('shows the API 422 messages on their fields', async () => {
    const onSubmit = vi.fn(async () => {
      throw new ApiError(422, '入力内容に誤りがあります。', undefined, [
        { field: 'name', message: '同じ名前のタグがすでに存在します' },
        { field: 'description', message: '説明は200文字以内で入力してください' },
      ]);
    });
    renderModal(onSubmit);
    await userEvent.type(await screen.findByLabelText(/タグ名/), '紹介元');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('同じ名前のタグがすでに存在します')).toBeInTheDocument();
    expect(screen.getByText('説明は200文字以内で入力してください')).toBeInTheDocument();
    expect(onSubmit).toHaveBeenCalledWith({ name: '紹介元', description: '', group_name: '' });
  });

  it('shows no field message for an error that is not a 422', async () => {
    renderModal(async () => {
      throw new ApiError(500, '一時的なエラーが発生しました。');
    });
    await userEvent.type(await screen.findByLabelText(/タグ名/), 'x');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(screen.queryByText('一時的なエラーが発生しました。')).not.toBeInTheDocument();
  });
});
