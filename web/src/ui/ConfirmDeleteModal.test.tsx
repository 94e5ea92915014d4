import { describe, expect, it, vi } from 'vitest';
import { MantineProvider } from '@mantine/core';
import { render, screen, waitFor } from '@testing-library/react';
import { useState } from 'react';
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

  it('names its button and adds a quieter line when asked', async () => {
    const onConfirm = vi.fn();
    render(
      <MantineProvider>
        <ConfirmDeleteModal
          opened
          title="タグを削除"
          message="タグ「地域」を削除しますか？"
          detail="このタグが付いている3件の医療機関からも外れます。"
          confirmLabel="削除する"
          pending={false}
          onClose={() => {}}
          onConfirm={onConfirm}
        />
      </MantineProvider>,
    );
    expect(await screen.findByText('このタグが付いている3件の医療機関からも外れます。')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: '削除する' }));
    expect(onConfirm).toHaveBeenCalledTimes(1);
  });

  it('mounted on open and unmounted on close, it gives the focus back to the button that opened it', async () => {
    function Page() {
      const [open, setOpen] = useState(false);
      return (
        <>
          <button onClick={() => setOpen(true)}>削除…</button>
          {open && (
            <ConfirmDeleteModal
              opened
              title="タグを削除"
              message="タグ「地域」を削除しますか？"
              pending={false}
              onClose={() => setOpen(false)}
              onConfirm={() => setOpen(false)}
            />
          )}
        </>
      );
    }
    render(
      <MantineProvider>
        <Page />
      </MantineProvider>,
    );
    const opener = screen.getByRole('button', { name: '削除…' });
    opener.focus();
    await userEvent.keyboard('{Enter}');
    const dialog = await screen.findByRole('dialog', { name: 'タグを削除' });
    await waitFor(() => expect(dialog).toContainElement(document.activeElement as HTMLElement));
    await userEvent.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(() => expect(opener).toHaveFocus());
  });
});
