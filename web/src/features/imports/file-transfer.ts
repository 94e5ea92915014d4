import {
  audienceOf,
  clientVersion,
  clientVersionHeader,
  encodeQuery,
  errorMessages,
  minPositionHeader,
  type EndpointContract,
  type QueryValue,
} from '@renkei/contracts/client';
import type { z } from 'zod';
import { ApiError } from '../../api/api-errors.ts';
import type { AppServices } from '../../app/services-context.tsx';

/**
 * The typed client speaks JSON only; CSV downloads and multipart uploads go through here with the same
 * token, headers and error mapping, so a 422 of an upload still lands on its field.
 */
async function send(
  services: Pick<AppServices, 'auth' | 'config' | 'api'>,
  contract: Pick<EndpointContract, 'path' | 'method' | 'service'>,
  init: { query?: Record<string, QueryValue>; json?: unknown; form?: FormData; signal?: AbortSignal },
): Promise<Response> {
  let url = `${services.config.apiBaseUrl}${contract.path}`;
  if (init.query) {
    const qs = encodeQuery(init.query);
    if (qs) url += `?${qs}`;
  }
  let response: Response;
  try {
    const token = await services.auth.getToken(audienceOf[contract.service]);
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, [clientVersionHeader]: clientVersion };
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    const position = services.api.transport.lastPosition();
    if (contract.method === 'GET' && position) headers[minPositionHeader] = position;
    response = await fetch(url, {
      method: contract.method,
      headers,
      body: init.form ?? (init.json !== undefined ? JSON.stringify(init.json) : undefined),
      credentials: 'include',
      signal: init.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(500, errorMessages[500]);
  }
  if (response.status < 200 || response.status > 299) {
    let body: { message?: unknown; errors?: unknown; sub_code?: unknown } = {};
    try {
      body = (await response.json()) as typeof body;
    } catch {}
    const errors = Array.isArray(body.errors)
      ? body.errors.filter(
          (e): e is { field: string; message: string } =>
            typeof e?.field === 'string' && typeof e?.message === 'string',
        )
      : [];
    const fallback = errorMessages[response.status as keyof typeof errorMessages] ?? errorMessages[500];
    throw new ApiError(
      response.status,
      typeof body.message === 'string' ? body.message : fallback,
      typeof body.sub_code === 'string' ? body.sub_code : undefined,
      errors,
    );
  }
  return response;
}

function filenameOf(response: Response, fallback: string): string {
  const disposition = response.headers.get('content-disposition') ?? '';
  const star = disposition.match(/filename\*=UTF-8''([^;]+)/i);
  if (star?.[1]) return decodeURIComponent(star[1]);
  const plain = disposition.match(/filename="?([^";]+)"?/i);
  return plain?.[1] ?? fallback;
}

/** Calls a download endpoint and hands the file to the browser. */
export async function downloadFile(
  services: Pick<AppServices, 'auth' | 'config' | 'api'>,
  contract: EndpointContract,
  args: { query?: Record<string, QueryValue>; body?: unknown; fallbackName: string },
): Promise<void> {
  const response = await send(services, contract, { query: args.query, json: args.body });
  const blob = await response.blob();
  const href = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = href;
  a.download = filenameOf(response, args.fallbackName);
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** Calls a multipart endpoint: the file as the part `file`, the contract's body fields beside it. */
export async function uploadFile<E extends EndpointContract>(
  services: Pick<AppServices, 'auth' | 'config' | 'api'>,
  contract: E,
  file: File,
  fields: Record<string, string | undefined> = {},
): Promise<E extends EndpointContract<any, any, any, infer R> ? z.output<R> : never> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) form.append(key, value);
  form.append('file', file, file.name);
  const response = await send(services, contract, { form });
  return (await response.json()) as never;
}

/** Calls a download endpoint and answers its file, for a page to show (an image) rather than save. */
export async function fetchFile(
  services: Pick<AppServices, 'auth' | 'config' | 'api'>,
  contract: Pick<EndpointContract, 'path' | 'method' | 'service'>,
  args: { query?: Record<string, QueryValue>; signal?: AbortSignal } = {},
): Promise<Blob> {
  const response = await send(services, contract, args);
  return response.blob();
}
