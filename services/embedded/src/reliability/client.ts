import https from 'node:https';
import tls from 'node:tls';
import { randomUUID } from 'node:crypto';

export interface SuiteResponse {
  /** The `X-Request-Id` the suite sent: the correlation id of any event the request wrote. */
  readonly requestId: string;
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  readonly json: any;
}

export interface SuiteRequest {
  method: string;
  /** Path with query string, already encoded (the suite sends malformed escapes on purpose). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Milliseconds before the request is given up (default 120 s). */
  timeoutMs?: number;
}

/** Every answer of the run, so the error-body checks see what all the attacks provoked. */
export interface RecordedResponse {
  readonly request: string;
  readonly response: SuiteResponse;
}

const parse = (text: string): any => {
  if (!/^\s*[[{"]/.test(text)) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** A small https client for the gateway: real TLS, real routing, nothing smoothed over. */
export class HttpsClient {
  readonly recorded: RecordedResponse[] = [];
  private readonly agent: https.Agent;

  constructor(private readonly target: { host: string; port: number; servername: string; ca: string }) {
    this.agent = new https.Agent({ keepAlive: true, maxSockets: 32, ca: target.ca, servername: target.servername });
  }

  async request(req: SuiteRequest): Promise<SuiteResponse> {
    try {
      return await this.once(req);
    } catch (error) {
      // A kept-alive socket the server closed just as it was reused: the request never reached it
      // (Node's documented race), so sending it again is safe.
      if ((error as { reusedSocket?: boolean }).reusedSocket) return this.once(req);
      throw error;
    }
  }

  private once(req: SuiteRequest): Promise<SuiteResponse> {
    const requestId = req.headers?.['x-request-id'] ?? randomUUID();
    return new Promise((resolve, reject) => {
      const r = https.request(
        {
          agent: this.agent,
          host: this.target.host,
          port: this.target.port,
          servername: this.target.servername,
          method: req.method,
          path: req.path,
          headers: { host: `localhost:${this.target.port}`, 'x-request-id': requestId, ...req.headers },
          timeout: req.timeoutMs ?? 120_000,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const response = { requestId, status: res.statusCode ?? 0, headers: res.headers, text, json: parse(text) };
            this.recorded.push({ request: `${req.method} ${req.path.slice(0, 200)}`, response });
            resolve(response);
          });
        },
      );
      r.on('timeout', () => r.destroy(new Error(`timeout: ${req.method} ${req.path}`)));
      r.on('error', (error: Error & { code?: string }) =>
        reject(Object.assign(error, { reusedSocket: r.reusedSocket && error.code === 'ECONNRESET' })),
      );
      r.end(req.body);
    });
  }

  /**
   * Writes bytes as they are (a truncated multipart body, a lying Content-Length) and reads the
   * answer's status line; resolves 0 when the server closes without answering within `waitMs`.
   */
  raw(bytes: Buffer, waitMs = 5_000): Promise<{ status: number; text: string }> {
    return new Promise((resolve) => {
      const socket = tls.connect({
        host: this.target.host,
        port: this.target.port,
        servername: this.target.servername,
        ca: this.target.ca,
      });
      let text = '';
      // Interim answers (`100 Continue`) come before the final one: the status is the final one's.
      const final = () => text.replace(/^(HTTP\/1\.1 1\d\d[^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n)+/, '');
      const done = () => {
        clearTimeout(timer);
        socket.destroy();
        text = final();
        const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
        resolve({ status: m ? Number(m[1]) : 0, text });
      };
      const timer = setTimeout(done, waitMs);
      socket.on('secureConnect', () => socket.write(bytes));
      socket.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        if (/\r\n\r\n/.test(final())) {
          // The head is enough for a status; give the body a moment to arrive for the error checks.
          setTimeout(done, 100);
        }
      });
      socket.on('error', done);
      socket.on('close', done);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
