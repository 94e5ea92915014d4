import { describe, expect, it, vi } from 'vitest';
import { endpoints } from '@renkei/contracts';
import { createApiClient } from './api-client.ts';
import { ApiError, RequiredParameterError, fieldErrorsOf } from './api-errors.ts';

const tagId = '0b3c5a8e-4b7e-4d9a-9c56-2b7f8f0d1e21';

function setup(responses: Array<Response | Error>) {
  const fetch = vi.fn(async (_input: string, _init?: RequestInit) => {
    const next = responses.shift();
    if (!next) throw new Error('no more responses');
    if (next instanceof Error) throw next;
    return next;
  });
  const getToken = vi.fn(async (audience: string) => `token-${audience}`);
  const api = createApiClient({ baseUrl: '/api', getToken, fetch: fetch as unknown as typeof globalThis.fetch });
  return { api, fetch, getToken };
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
const page = { data: [], meta: { total_count: 0, page: 1, per_page: 20, total_pages: 0 } };

describe('api client', () => {
  it('has one function per endpoint of the contract registry', () => {
    const { api } = setup([]);
    const functions = Object.keys(api).filter(
      (k) => typeof (api as unknown as Record<string, unknown>)[k] === 'function',
    );
    expect(functions.sort()).toEqual(Object.keys(endpoints).sort());
  });

  it('raises a required-parameter error naming a missing path id before any request', async () => {
    const { api, fetch } = setup([]);
    await expect(api.deleteTag({ params: { id: undefined as unknown as string } })).rejects.toEqual(
      new RequiredParameterError('id'),
    );
    await expect(
      api.updateTag({ params: { id: null as unknown as string }, body: { name: 'x' } }),
    ).rejects.toMatchObject({ parameter: 'id' });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('raises a required-parameter error for a missing body', async () => {
    const { api, fetch } = setup([]);
    const error = await api.createTag({ body: null as never }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequiredParameterError);
    expect((error as RequiredParameterError).parameter).toBe('body');
    expect((error as Error).message).toContain('body');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('encodes the query with the shared encoder and fills path params', async () => {
    const { api, fetch } = setup([json(page), json({ id: tagId }, 200)]);
    await api.listTags({ query: { page: 2, per_page: 50, sort: 'desc' } });
    expect(fetch.mock.calls[0]![0]).toBe('/api/tags?page=2&per_page=50&sort=desc');
    await api.updateTag({ params: { id: tagId }, body: { name: 'a' }, ifMatch: 3 });
    const [url, init] = fetch.mock.calls[1]! as unknown as [string, RequestInit];
    expect(url).toBe(`/api/tags/${tagId}`);
    expect(init.method).toBe('PUT');
    expect((init.headers as Record<string, string>)['if-match']).toBe('3');
    expect(JSON.parse(init.body as string)).toEqual({ name: 'a' });
  });

  it("hands the answer's ETag to the caller that asks for it (a list's version, sent back as If-Match)", async () => {
    const { api } = setup([json([], 200, { etag: '"4"' }), json([], 200)]);
    const seen: (string | null)[] = [];
    await api.listCommunicationLabels({ query: {}, onEtag: (etag) => seen.push(etag) });
    await api.listCommunicationLabels({ query: {}, onEtag: (etag) => seen.push(etag) });
    expect(seen).toEqual(['"4"', null]);
  });

  it('sends a multipart body as the FormData it is, leaving its content type to the browser', async () => {
    const { api, fetch } = setup([json({ id: tagId }, 201)]);
    const form = new FormData();
    form.append('stringified', '{}');
    await api.transport.send(
      { ...endpoints.updateEmail, body: true },
      { params: { id: tagId }, body: form, ifMatch: 1 },
    );
    const [url, init] = fetch.mock.calls[0]! as unknown as [string, RequestInit];
    expect(url).toBe(`/api/emails/${tagId}`);
    expect(init.body).toBe(form);
    expect((init.headers as Record<string, string>)['content-type']).toBeUndefined();
  });

  it('sends a bearer token for the endpoint audience, the client version and cookies', async () => {
    const { api, fetch, getToken } = setup([
      json(page),
      json({ id: tagId }, 201),
      json({ username: 'a', notification_settings: {} }),
    ]);
    await api.listTags({});
    await api.createTag({ body: { name: 'x' } });
    await api.getProfile({});
    expect(getToken.mock.calls.map((c) => c[0])).toEqual(['query', 'command', 'main']);
    const init = fetch.mock.calls[0]![1] as unknown as RequestInit;
    const headers = init.headers as Record<string, string>;
    expect(headers.authorization).toBe('Bearer token-query');
    expect(headers['x-client-version']).toBe('renkei-web/1.0');
    expect(init.credentials).toBe('include');
  });

  it('sends the last command position as X-Min-Position on the following queries only', async () => {
    const { api, fetch } = setup([
      json({ id: tagId }, 201, { 'x-position': '42' }),
      json(page),
      json({ id: tagId }, 201),
    ]);
    await api.createTag({ body: { name: 'x' } });
    await api.listTags({});
    await api.createTag({ body: { name: 'y' } });
    const headersOf = (i: number) =>
      (fetch.mock.calls[i]![1] as unknown as RequestInit).headers as Record<string, string>;
    expect(headersOf(0)['x-min-position']).toBeUndefined();
    expect(headersOf(1)['x-min-position']).toBe('42');
    expect(headersOf(2)['x-min-position']).toBeUndefined();
    expect(api.transport.lastPosition()).toBe('42');
  });

  it('sends the position to a search sent as POST, and a create its Idempotency-Key', async () => {
    const { api, fetch } = setup([json({ id: tagId }, 201, { 'x-position': '43' }), json(page)]);
    await api.createTag({ body: { name: 'x' }, idempotencyKey: 'key-1' });
    await api.searchCommunications({ body: {} });
    const headersOf = (i: number) =>
      (fetch.mock.calls[i]![1] as unknown as RequestInit).headers as Record<string, string>;
    expect(headersOf(0)['idempotency-key']).toBe('key-1');
    expect(headersOf(1)['x-min-position']).toBe('43');
  });

  it('turns a status outside 200–299 into an error with status, sub code and field errors', async () => {
    const { api } = setup([
      json(
        {
          status: 422,
          message: '入力内容に誤りがあります。',
          errors: [{ field: 'name', message: 'タグ名を入力してください' }],
        },
        422,
      ),
      json({ status: 403, message: 'no', sub_code: 'IP_NOT_ALLOWED' }, 403),
    ]);
    const invalid = await api.createTag({ body: { name: '' } }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ApiError);
    expect((invalid as ApiError).status).toBe(422);
    expect(fieldErrorsOf(invalid)).toEqual({ name: 'タグ名を入力してください' });
    const forbidden = (await api.listTags({}).catch((e: unknown) => e)) as ApiError;
    expect(forbidden.status).toBe(403);
    expect(forbidden.subCode).toBe('IP_NOT_ALLOWED');
  });

  it('maps a thrown value that is not a response to a 500', async () => {
    const { api } = setup([new TypeError('Failed to fetch')]);
    const error = (await api.listTags({}).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(500);
  });

  it('answers null for 204 and keeps an error body without JSON usable', async () => {
    const { api } = setup([new Response(null, { status: 204 }), new Response('gateway down', { status: 503 })]);
    expect(await api.deleteTag({ params: { id: tagId }, ifMatch: 1 })).toBeNull();
    const error = (await api.listTags({}).catch((e: unknown) => e)) as ApiError;
    expect(error.status).toBe(503);
    expect(error.message).toContain('しばらくしてから');
  });
});
