import type { FastifyInstance } from 'fastify';

export interface BrowserResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  url: string;
}

/**
 * A minimal browser for driving the sign-in pages with `inject()`: keeps cookies, follows same-origin
 * redirects, and presents itself as arriving through the https gateway.
 */
export class TestBrowser {
  private cookies = new Map<string, string>();
  /** Every Set-Cookie line received, in order, to check the attributes the server sets. */
  readonly setCookieLines: string[] = [];

  constructor(
    public app: FastifyInstance,
    private readonly origin = 'https://localhost:3000',
    private readonly ip = '127.0.0.1',
  ) {}

  private storeCookies(setCookie: string | string[] | undefined) {
    for (const line of ([] as string[]).concat(setCookie ?? [])) {
      this.setCookieLines.push(line);
      const [pair, ...attributes] = line.split(';');
      const index = pair!.indexOf('=');
      const name = pair!.slice(0, index).trim();
      const value = pair!.slice(index + 1).trim();
      const expired = attributes.some((a) => {
        const [k, v] = a.trim().split('=');
        if (k?.toLowerCase() === 'max-age') return Number(v) <= 0;
        if (k?.toLowerCase() === 'expires') return new Date(v!).getTime() < Date.now();
        return false;
      });
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** A cookie this browser holds, e.g. to replay it from another browser. */
  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  setCookie(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  async request(
    method: 'GET' | 'POST',
    url: string,
    options: { form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<BrowserResponse> {
    const target = new URL(url, this.origin);
    const response = await this.app.inject({
      method,
      url: target.pathname + target.search,
      headers: {
        host: target.host,
        'x-forwarded-proto': 'https',
        'x-forwarded-for': this.ip,
        ...(this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...(options.form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...options.headers,
      },
      ...(options.form ? { payload: new URLSearchParams(options.form).toString() } : {}),
    });
    this.storeCookies(response.headers['set-cookie']);
    return { status: response.statusCode, headers: response.headers, body: response.body, url: target.href };
  }

  /** Follows redirects until one leaves the provider (`/oidc`), returning that location. */
  async navigate(
    method: 'GET' | 'POST',
    url: string,
    options: { form?: Record<string, string> } = {},
  ): Promise<BrowserResponse & { location?: string }> {
    let response = await this.request(method, url, options);
    for (let hops = 0; hops < 10; hops++) {
      const location = response.headers.location;
      if (response.status < 300 || response.status >= 400 || typeof location !== 'string') return response;
      const next = new URL(location, response.url);
      if (!next.pathname.startsWith('/oidc')) return { ...response, location: next.href };
      response = await this.request('GET', next.href);
    }
    throw new Error('too many redirects');
  }
}
