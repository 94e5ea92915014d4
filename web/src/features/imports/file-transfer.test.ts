import { endpoints } from '@renkei/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../api/api-errors.ts';
import type { AppServices } from '../../app/services-context.tsx';
import { testServices } from '../../test/render-app.tsx';
import { stubXhr } from '../../test/fake-xhr.ts';
import { uploadFile, type UploadProgress } from './file-transfer.ts';

function services(position: string | null = '12'): AppServices {
  const base = testServices();
  return {
    ...base,
    auth: { ...base.auth, getToken: vi.fn(async () => 'tok') },
    api: { transport: { lastPosition: () => position } } as unknown as AppServices['api'],
  };
}

const record = { id: '00000000-0000-4000-8000-000000000001', filename: 'ff1.txt', status: 'waiting' };
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => vi.unstubAllGlobals());

describe('uploadFile', () => {
  it('posts the fields before the file with the token, and reports the share of the file sent', async () => {
    const sent = stubXhr();
    const seen: UploadProgress[] = [];
    const file = new File(['x'.repeat(1000)], 'ff1.txt');
    const done = uploadFile(
      services(),
      endpoints.createDataUpload,
      file,
      { import_type: 'ff1_file', mapping_profile_id: undefined },
      {
        onProgress: (p) => seen.push(p),
      },
    );
    await settle();
    const [request] = sent;
    expect(request).toMatchObject({ method: 'POST', withCredentials: true });
    expect(request!.url).toMatch(/\/data_uploads$/);
    expect(request!.headers.authorization).toBe('Bearer tok');
    // Only reads wait for a position; an upload sends none (as the JSON client).
    expect(request!.headers['x-min-position']).toBeUndefined();
    expect([...request!.body!.keys()]).toEqual(['import_type', 'file']);
    request!.progress(600, 1200);
    request!.respond(202, record);
    await expect(done).resolves.toEqual(record);
    expect(seen).toEqual([
      { loaded: 500, total: 1000 },
      { loaded: 1000, total: 1000 },
    ]);
  });

  it('maps an error answer as the typed client does: message, sub-code and field errors', async () => {
    const sent = stubXhr();
    const done = uploadFile(services(), endpoints.createDataUpload, new File(['x'], 'a.csv'), { import_type: 'x' });
    await settle();
    sent[0]!.respond(422, {
      status: 422,
      message: '入力内容を確認してください',
      errors: [{ field: 'import_type', message: '選択してください' }, { bad: 1 }],
    });
    const error = await done.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 422, errors: [{ field: 'import_type', message: '選択してください' }] });

    const tooLarge = uploadFile(services(), endpoints.createDataUpload, new File(['x'], 'a.csv'));
    await settle();
    sent[1]!.respond(413, { status: 413, message: 'ファイルが大きすぎます（上限 99 MB）。' });
    await expect(tooLarge).rejects.toMatchObject({ status: 413, message: 'ファイルが大きすぎます（上限 99 MB）。' });

    const html = uploadFile(services(), endpoints.createDataUpload, new File(['x'], 'a.csv'));
    await settle();
    sent[2]!.respond(502, '<html>bad gateway</html>');
    await expect(html).rejects.toMatchObject({ status: 502 });
  });

  it('answers a network failure as a 500 and an abort as an AbortError', async () => {
    const sent = stubXhr();
    const failed = uploadFile(services(), endpoints.createDataUpload, new File(['x'], 'a.csv'));
    await settle();
    sent[0]!.fail();
    await expect(failed).rejects.toMatchObject({ status: 500 });

    const controller = new AbortController();
    const aborted = uploadFile(
      services(),
      endpoints.createDataUpload,
      new File(['x'], 'a.csv'),
      {},
      {
        signal: controller.signal,
      },
    );
    await settle();
    controller.abort();
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' });
    expect(sent[1]!.aborted).toBe(true);
  });
});
