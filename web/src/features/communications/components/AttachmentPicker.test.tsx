import { MantineProvider } from '@mantine/core';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { UploadedFile } from '@renkei/contracts';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ServicesProvider } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { AttachmentPicker, offlineAttachmentMessage } from './AttachmentPicker.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function renderPicker(upload: (file: File) => Promise<UploadedFile>, initial: UploadedFile[] = []) {
  const changes: UploadedFile[][] = [];
  function Harness() {
    const [files, setFiles] = useState(initial);
    return (
      <AttachmentPicker
        value={files}
        upload={upload}
        onChange={(next) => {
          changes.push(next);
          setFiles(next);
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

afterEach(() => vi.restoreAllMocks());

describe('attachment picker', () => {
  it('offers the camera or library for photos, uploads what is chosen, shows it and removes it before submit', async () => {
    let n = 10;
    const upload = vi.fn(async (file: File) => ({ id: id(n++), url: `/files/${id(n)}`, filename: file.name }));
    const changes = renderPicker(upload);
    const photo = screen.getByLabelText('写真を選ぶ');
    // 写真を選ぶ: no `capture`, so a phone offers its library as well as the camera.
    expect(photo.getAttribute('accept')).toBe('image/*');
    expect(photo.hasAttribute('capture')).toBe(false);
    // 撮影: the rear camera directly, one photo at a time; its button opens that input.
    const camera = screen.getByLabelText<HTMLInputElement>('撮影する');
    expect(camera.getAttribute('accept')).toBe('image/*');
    expect(camera.getAttribute('capture')).toBe('environment');
    expect(camera.multiple).toBe(false);
    const opened = vi.spyOn(camera, 'click');
    await userEvent.click(screen.getByRole('button', { name: '撮影' }));
    expect(opened).toHaveBeenCalledTimes(1);
    await userEvent.upload(camera, new File([new Uint8Array([0xff, 0xd8, 0xff])], '撮影.jpg', { type: 'image/jpeg' }));
    await waitFor(() => expect(changes.at(-1)?.map((f) => f.filename)).toEqual(['撮影.jpg']));
    await userEvent.upload(photo, new File([new Uint8Array([0xff, 0xd8, 0xff])], '駐車場.jpg', { type: 'image/jpeg' }));
    await userEvent.upload(screen.getByLabelText('ファイルを選ぶ'), new File(['%PDF-'], '案内.pdf'));
    await waitFor(() => expect(changes.at(-1)?.map((f) => f.filename)).toEqual(['撮影.jpg', '駐車場.jpg', '案内.pdf']));
    expect(screen.getByAltText('駐車場.jpg')).toBeTruthy();
    expect(screen.getByText(/案内\.pdf/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: '駐車場.jpgを外す' }));
    expect(changes.at(-1)?.map((f) => f.filename)).toEqual(['撮影.jpg', '案内.pdf']);
    expect(upload).toHaveBeenCalledTimes(3);
  });

  it('says in Japanese that files need a connection when offline, and uploads nothing', async () => {
    vi.spyOn(navigator, 'onLine', 'get').mockReturnValue(false);
    const upload = vi.fn();
    const changes = renderPicker(upload, [{ id: id(1), url: '/files/x', filename: '既存.pdf' }]);
    await userEvent.upload(screen.getByLabelText('写真を選ぶ'), new File(['x'], 'a.jpg', { type: 'image/jpeg' }));
    expect((await screen.findByRole('alert')).textContent).toBe(offlineAttachmentMessage);
    expect(upload).not.toHaveBeenCalled();
    expect(changes).toEqual([]);
    expect(screen.getByText(/既存\.pdf/)).toBeTruthy();
  });

  it('refuses a file over 10 MB before sending it', async () => {
    const upload = vi.fn();
    renderPicker(upload);
    const big = new File(['x'], 'big.jpg', { type: 'image/jpeg' });
    Object.defineProperty(big, 'size', { value: 11 * 1024 * 1024 });
    await userEvent.upload(screen.getByLabelText('写真を選ぶ'), big);
    expect((await screen.findByRole('alert')).textContent).toContain('大きすぎます');
    expect(upload).not.toHaveBeenCalled();
  });
});
