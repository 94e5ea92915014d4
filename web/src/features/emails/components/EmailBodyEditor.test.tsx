import { MantineProvider } from '@mantine/core';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UploadedFile } from '@renkei/contracts';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { ServicesProvider } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { EmailBodyEditor } from './EmailBodyEditor.tsx';

// jsdom lays nothing out: the editor scrolls the inserted image into view through Range rectangles.
beforeAll(() => {
  const empty = () =>
    ({ length: 0, item: () => null, [Symbol.iterator]: [][Symbol.iterator] }) as unknown as DOMRectList;
  Range.prototype.getClientRects ??= empty;
  Range.prototype.getBoundingClientRect ??= () => new DOMRect(0, 0, 0, 0);
});

const fileId = '00000000-0000-4000-8000-000000000001';

function renderEditor(upload: (file: File) => Promise<UploadedFile>) {
  const changes: string[] = [];
  render(
    <MantineProvider>
      <ServicesProvider value={testServices()}>
        <EmailBodyEditor value="<p>本文</p>" onChange={(html) => changes.push(html)} upload={upload} />
      </ServicesProvider>
    </MantineProvider>,
  );
  return changes;
}

describe('email body editor', () => {
  it('uploads a chosen image and inserts it with its link and alternative text', async () => {
    const upload = vi.fn(async (file: File) => ({
      id: fileId,
      url: `/files/${fileId}?expires=1&signature=s`,
      filename: file.name,
    }));
    const changes = renderEditor(upload);
    const user = userEvent.setup();
    await user.click(screen.getByRole('button', { name: '画像を挿入' }));
    await user.type(await screen.findByLabelText('代替テキスト'), '会場の地図');
    const input = document.querySelector<HTMLInputElement>('input[type="file"]')!;
    await user.upload(input, new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'map.png', { type: 'image/png' }));
    await waitFor(() => expect(changes.at(-1)).toContain(`/files/${fileId}?expires=1&amp;signature=s`));
    expect(upload).toHaveBeenCalledOnce();
    expect(changes.at(-1)).toContain('alt="会場の地図"');
  });

  it('refuses a file that is not an image, without uploading it', async () => {
    const upload = vi.fn();
    const changes = renderEditor(upload);
    const user = userEvent.setup({ applyAccept: false });
    await user.click(screen.getByRole('button', { name: '画像を挿入' }));
    await screen.findByLabelText('代替テキスト');
    const input = document.querySelector<HTMLInputElement>('input[type="file"]')!;
    await user.upload(input, new File(['a,b'], 'list.csv', { type: 'text/csv' }));
    expect(await screen.findByText('画像ファイル（PNG・JPEG・GIF）を選んでください')).toBeTruthy();
    expect(upload).not.toHaveBeenCalled();
    expect(changes).toEqual([]);
  });
});
