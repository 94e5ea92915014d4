import { vi } from 'vitest';

/** One request sent through the fake XMLHttpRequest: what was sent, and the means to answer it. */
export interface FakeUpload {
  method: string;
  url: string;
  headers: Record<string, string>;
  withCredentials: boolean;
  body: FormData | null;
  /** Reports `loaded` of `total` body bytes sent. */
  progress(loaded: number, total: number): void;
  respond(status: number, body: unknown): void;
  fail(): void;
  aborted: boolean;
}

/**
 * Stubs XMLHttpRequest (the uploads' transport, for their progress) for a test; undone by
 * `vi.unstubAllGlobals()`. `answer`, when given, answers every request as soon as it is sent.
 */
export function stubXhr(answer?: { status: number; body: unknown }): FakeUpload[] {
  const sent: FakeUpload[] = [];
  class FakeXhr {
    status = 0;
    responseText = '';
    withCredentials = false;
    upload: { onprogress: ((event: ProgressEvent) => void) | null } = { onprogress: null };
    onload: (() => void) | null = null;
    onerror: (() => void) | null = null;
    ontimeout: (() => void) | null = null;
    onabort: (() => void) | null = null;
    private method = '';
    private url = '';
    private headers: Record<string, string> = {};
    private record: FakeUpload | null = null;
    open(method: string, url: string) {
      this.method = method;
      this.url = url;
    }
    setRequestHeader(name: string, value: string) {
      this.headers[name.toLowerCase()] = value;
    }
    abort() {
      if (this.record) this.record.aborted = true;
      this.onabort?.();
    }
    send(body: FormData | null) {
      // eslint-disable-next-line @typescript-eslint/no-this-alias -- the record's methods act on this request
      const xhr = this;
      const record: FakeUpload = {
        method: this.method,
        url: this.url,
        headers: this.headers,
        withCredentials: this.withCredentials,
        body,
        aborted: false,
        progress(loaded, total) {
          xhr.upload.onprogress?.({ loaded, total, lengthComputable: true } as ProgressEvent);
        },
        respond(status, answerBody) {
          xhr.status = status;
          xhr.responseText = typeof answerBody === 'string' ? answerBody : JSON.stringify(answerBody);
          xhr.onload?.();
        },
        fail() {
          xhr.onerror?.();
        },
      };
      this.record = record;
      sent.push(record);
      if (answer) queueMicrotask(() => record.respond(answer.status, answer.body));
    }
  }
  vi.stubGlobal('XMLHttpRequest', FakeXhr);
  return sent;
}
