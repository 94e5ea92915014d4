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
  let response: Response;
  try {
    const { url, headers } = await requestOf(services, contract, init);
    if (init.json !== undefined) headers['content-type'] = 'application/json';
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
  if (response.status < 200 || response.status > 299)
    throw apiErrorOf(response.status, await response.text().catch(() => ''));
  return response;
}

/** The URL and headers every call here sends: the token of the owning service, the client version, the position read after. */
async function requestOf(
  services: Pick<AppServices, 'auth' | 'config' | 'api'>,
  contract: Pick<EndpointContract, 'path' | 'method' | 'service'>,
  init: { query?: Record<string, QueryValue> },
): Promise<{ url: string; headers: Record<string, string> }> {
  let url = `${services.config.apiBaseUrl}${contract.path}`;
  if (init.query) {
    const qs = encodeQuery(init.query);
    if (qs) url += `?${qs}`;
  }
  const token = await services.auth.getToken(audienceOf[contract.service]);
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, [clientVersionHeader]: clientVersion };
  const position = services.api.transport.lastPosition();
  if (contract.method === 'GET' && position) headers[minPositionHeader] = position;
  return { url, headers };
}

/** An error answer as the typed client maps it: the server's message, sub-code and field errors. */
function apiErrorOf(status: number, text: string): ApiError {
  let body: { message?: unknown; errors?: unknown; sub_code?: unknown } = {};
  try {
    body = (JSON.parse(text) as typeof body | null) ?? {};
  } catch {}
  const errors = Array.isArray(body.errors)
    ? body.errors.filter(
        (e): e is { field: string; message: string } => typeof e?.field === 'string' && typeof e?.message === 'string',
      )
    : [];
  const fallback = errorMessages[status as keyof typeof errorMessages] ?? errorMessages[500];
  return new ApiError(
    status,
    typeof body.message === 'string' ? body.message : fallback,
    typeof body.sub_code === 'string' ? body.sub_code : undefined,
    errors,
  );
}

/** How much of a file has been sent, in bytes of the file. */
export interface UploadProgress {
  loaded: number;
  total: number;
}

/**
 * A multipart POST through XMLHttpRequest, the one browser API that reports how much of a request body
 * has been sent (fetch does not). Same headers, credentials and error mapping as `send`.
 */
async function sendWithProgress(
  services: Pick<AppServices, 'auth' | 'config' | 'api'>,
  contract: Pick<EndpointContract, 'path' | 'method' | 'service'>,
  form: FormData,
  file: File,
  options: UploadOptions,
): Promise<string> {
  let request: { url: string; headers: Record<string, string> };
  try {
    request = await requestOf(services, contract, {});
  } catch {
    throw new ApiError(500, errorMessages[500]);
  }
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(contract.method, request.url);
    for (const [name, value] of Object.entries(request.headers)) xhr.setRequestHeader(name, value);
    xhr.withCredentials = true;
    xhr.upload.onprogress = (event) => {
      if (!options.onProgress) return;
      // The body is the file plus a little multipart framing: shown as the share of the file sent.
      const share = event.lengthComputable && event.total > 0 ? Math.min(1, event.loaded / event.total) : 0;
      options.onProgress({ loaded: Math.round(share * file.size), total: file.size });
    };
    xhr.onload = () => resolve({ status: xhr.status, text: xhr.responseText });
    xhr.onerror = () => reject(new ApiError(500, errorMessages[500]));
    xhr.ontimeout = () => reject(new ApiError(500, errorMessages[500]));
    xhr.onabort = () => reject(new DOMException('The upload was aborted.', 'AbortError'));
    if (options.signal?.aborted) {
      reject(new DOMException('The upload was aborted.', 'AbortError'));
      return;
    }
    options.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
  if (answer.status < 200 || answer.status > 299) throw apiErrorOf(answer.status, answer.text);
  options.onProgress?.({ loaded: file.size, total: file.size });
  return answer.text;
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

export interface UploadOptions {
  /** Called as the file is sent (and once at the end with everything sent). */
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}

/**
 * Calls a multipart endpoint: the file as the part `file`, the contract's body fields beside it (sent
 * first, so the server knows the import type, and its size limit, before the file arrives).
 */
export async function uploadFile<E extends EndpointContract>(
  services: Pick<AppServices, 'auth' | 'config' | 'api'>,
  contract: E,
  file: File,
  fields: Record<string, string | undefined> = {},
  options: UploadOptions = {},
): Promise<E extends EndpointContract<any, any, any, infer R> ? z.output<R> : never> {
  const form = new FormData();
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) form.append(key, value);
  form.append('file', file, file.name);
  const text = await sendWithProgress(services, contract, form, file, options);
  try {
    return JSON.parse(text) as never;
  } catch {
    throw new ApiError(500, errorMessages[500]);
  }
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
