import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { VocGroupsModal } from './VocGroupsModal.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const groups = [
  { id: id(1), name: '紹介・返書' },
  { id: id(2), name: '接遇' },
];

const renderModal = (onSubmit: (groups: unknown) => Promise<unknown>, onShowGroup = vi.fn()) =>
  render(
    <MantineProvider>
      <VocGroupsModal opened groups={groups} onClose={() => {}} onSubmit={onSubmit} onShowGroup={onShowGroup} />
    </MantineProvider>,
  );

describe('voc groups', () => {
  it('sends the whole list: kept ids, renamed, reordered, new ones without an id', async () => {
    const onSubmit = vi.fn(async () => {});
    renderModal(onSubmit);
    await userEvent.click(screen.getByRole('button', { name: 'グループを追加' }));
    await userEvent.type(screen.getByLabelText('グループ名 3'), '設備');
    await userEvent.click(screen.getByRole('button', { name: '接遇を上へ' }));
    await userEvent.type(screen.getByLabelText('グループ名 1'), '・窓口');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(onSubmit).toHaveBeenCalledWith([
      { id: id(2), name: '接遇・窓口' },
      { id: id(1), name: '紹介・返書' },
      { name: '設備' },
    ]);
  });

  it('refuses an empty name locally and shows the server refusing a group in use', async () => {
    const onSubmit = vi.fn(async () => {
      throw new ApiError(422, '入力内容に誤りがあります。', undefined, [
        {
          field: 'voc_groups',
          message: '「紹介・返書」は3件のVOCで使われているため削除できません。先にVOCのグループを変更してください',
        },
      ]);
    });
    const onShowGroup = vi.fn();
    renderModal(onSubmit, onShowGroup);
    await userEvent.click(screen.getByRole('button', { name: 'グループを追加' }));
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('グループ名を入力してください')).toBeInTheDocument();
    expect(onSubmit).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: '新しいグループを削除' }));
    await userEvent.click(screen.getByRole('button', { name: '紹介・返書を削除' }));
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByTestId('voc-groups-error')).toHaveTextContent('「紹介・返書」は3件のVOCで使われている');
    expect(onSubmit).toHaveBeenCalledWith([{ id: id(2), name: '接遇' }]);
    // The way to the VOCs to move first: only for the group left out.
    expect(screen.queryByRole('button', { name: '「接遇」のVOCを表示' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: '「紹介・返書」のVOCを表示' }));
    expect(onShowGroup).toHaveBeenCalledExactlyOnceWith(id(1));
  });
});
