import { MantineProvider } from '@mantine/core';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UploadedFile } from '@renkei/contracts';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { EmailAttachmentInput, type EmailAttachmentValue } from './EmailAttachmentInput.tsx';

const fileId = '00000000-0000-4000-8000-000000000001';

function renderInput(upload: (file: File) => Promise<UploadedFile>, initial: EmailAttachmentValue | null = null) {
  const changes: (EmailAttachmentValue | null)[] = [];
  function Harness() {
    const [value, setValue] = useState(initial);
    return (
      <EmailAttachmentInput
        value={value}
        upload={upload}
        onChange={(next) => {
          changes.push(next);
          setValue(next);
        }}
      />
    );
  }
  render(
    <MantineProvider>
      <ServicesProvider value={testServices()}>
        <Harness />
      </ServicesProvider>
    </MantineProvider>,
  );
  return changes;
}

const fileInput = () => document.querySelector<HTMLInputElement>('input[type="file"]')!;

describe('email attachment input', () => {
  it('says the limit, uploads the chosen file, shows its name and size with a link, and removes it', async () => {
    const upload = vi.fn(async (file: File) => ({
      id: fileId,
      url: `/files/${fileId}?expires=1&signature=s`,
      filename: file.name,
    }));
    const changes = renderInput(upload);
    expect(screen.getByText(/1ファイル・3 MBまで/)).toBeTruthy();
    await userEvent.upload(fileInput(), new File([new Uint8Array(2048)], '勉強会のご案内.pdf'));
    await waitFor(() =>
      expect(changes.at(-1)).toEqual({
        id: fileId,
        filename: '勉強会のご案内.pdf',
        size: 2048,
        url: `/files/${fileId}?expires=1&signature=s`,
      }),
    );
    expect(upload).toHaveBeenCalledOnce();
    const shown = screen.getByTestId('email-attachment');
    expect(shown).toHaveTextContent('勉強会のご案内.pdf');
    expect(shown).toHaveTextContent('（2 KB）');
    expect(screen.getByRole('link', { name: '勉強会のご案内.pdf' }).getAttribute('href')).toBe(
      `/files/${fileId}?expires=1&signature=s`,
    );
    // One file: no second file can be chosen while one is attached.
    expect(document.querySelector('input[type="file"]')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: '勉強会のご案内.pdfを外す' }));
    expect(changes.at(-1)).toBeNull();
    expect(screen.queryByTestId('email-attachment')).toBeNull();
    expect(screen.getByRole('button', { name: 'ファイルを添付' })).toBeTruthy();
  });

  it('refuses a file over 3 MB before sending it, in Japanese', async () => {
    const upload = vi.fn();
    const changes = renderInput(upload);
    await userEvent.upload(fileInput(), new File([new Uint8Array(3 * 1024 * 1024 + 1)], '大きな資料.pdf'));
    expect((await screen.findByRole('alert')).textContent).toBe(
      '「大きな資料.pdf」は大きすぎます（3.0 MB、上限 3 MB）。小さくするか、ファイルへのリンクを本文に入れてください',
    );
    expect(upload).not.toHaveBeenCalled();
    expect(changes).toEqual([]);
  });

  it("shows the server's message when the upload is refused", async () => {
    const upload = vi.fn(async () => {
      throw new ApiError(422, '入力内容に誤りがあります', undefined, [
        { field: 'file', message: 'ファイルを選んでください' },
      ]);
    });
    renderInput(upload);
    await userEvent.upload(fileInput(), new File(['x'], 'a.pdf'));
    expect((await screen.findByRole('alert')).textContent).toBe('ファイルを選んでください');
  });
});
