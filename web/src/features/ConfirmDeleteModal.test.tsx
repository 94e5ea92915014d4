import { describe, expect, it, vi } from 'vitest';
import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ConfirmDeleteModal } from './ConfirmDeleteModal.tsx';

describe('ConfirmDeleteModal', () => {
  it('asks with the given message and confirms or cancels', async () => {
    const onConfirm = vi.fn();
    const onClose = vi.fn();
    render(
      <MantineProvider>
        <ConfirmDeleteModal
          opened
          title="医師を削除"
          message="「山田」を削除しますか？"
          pending={false}
          onClose={onClose}
          onConfirm={onConfirm}
          testId="confirm-delete-x"
        />
      </MantineProvider>,
    );
    expect(await screen.findByText('「山田」を削除しますか？')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'キャンセル' }));
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(onConfirm).not.toHaveBeenCalled();
    await userEvent.click(screen.getByTestId('confirm-delete-x'));
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });
});
