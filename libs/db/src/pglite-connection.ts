import { EventEmitter } from 'node:events';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { serialize } from 'pg-protocol';

/**
 * The connection `pg` clients use to reach an in-process PGlite: a stand-in for the socket of
 * `@electric-sql/pglite/node-postgres`, which differs from it in one way that matters.
 *
 * That adapter hands PGlite every protocol message on its own. When Bind fails (a value the server
 * refuses, such as a malformed uuid), PGlite answers the error and then runs the Describe and Execute
 * that a real server would skip until Sync; their own errors arrive with no query waiting for them,
 * `pg` takes them for a broken connection, and the pool's next client shares this very object and
 * receives the rest of the exchange. Any refused statement made the embedded default fail the
 * queries after it, and could end the process. Here the messages of one exchange are collected and
 * handed over together at Sync (or Flush, or a simple Query), as a socket would deliver them, so the
 * backend skips to Sync itself. One call into PGlite per statement instead of five is also cheaper.
 */
class PgliteConnection extends EventEmitter {
  readonly #pglite: PGlite;
  #queue: Promise<void>;
  #pending: Buffer[] = [];
  #emitMessage = false;

  /** Read by pg's Client.end(), which skips connection.end() without it. */
  _connecting = false;
  /** pg's Client.end() destroys the stream when a query is still active. */
  readonly stream = { destroy: () => this.end() };
  parsedStatements: Record<string, string> = {};
  submittedNamedStatements: Record<string, string> = {};

  constructor(pglite: PGlite) {
    super();
    this.#pglite = pglite;
    this.#queue = pglite.waitReady;
    this.on('newListener', (eventName) => {
      if (eventName === 'message') this.#emitMessage = true;
    });
  }

  #buffer(message: Buffer): void {
    this.#pending.push(message);
  }

  #deliver(message?: Buffer): void {
    if (message) this.#pending.push(message);
    if (this.#pending.length === 0) return;
    const exchange = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending);
    this.#pending = [];
    this.#queue = this.#queue
      .then(() => this.#pglite.execProtocolStream(exchange, { throwOnError: false }))
      .then((messages) => {
        for (const m of messages) {
          if (this.#emitMessage) this.emit('message', m);
          // pg expects an ErrorResponse as 'errorMessage'.
          this.emit(m.name === 'error' ? 'errorMessage' : m.name, m);
        }
      })
      .catch((error: unknown) => {
        this.emit('error', error);
      });
  }

  async connect(): Promise<void> {
    this._connecting = true;
    await this.#pglite.waitReady;
    process.nextTick(() => this.emit('readyForQuery'));
  }

  // Authentication and TLS do not exist in process.
  requestSsl(): void {}
  startup(): void {}
  cancel(): void {}
  password(): void {}
  ref(): void {}
  unref(): void {}

  sendSASLInitialResponseMessage(mechanism: string, initialResponse: string): void {
    this.#deliver(serialize.sendSASLInitialResponseMessage(mechanism, initialResponse));
  }

  sendSCRAMClientFinalMessage(additionalData: string): void {
    this.#deliver(serialize.sendSCRAMClientFinalMessage(additionalData));
  }

  query(text: string): void {
    this.#deliver(serialize.query(text));
  }

  parse(query: Parameters<typeof serialize.parse>[0]): void {
    this.#buffer(serialize.parse(query));
  }

  bind(config: Parameters<typeof serialize.bind>[0]): void {
    this.#buffer(serialize.bind(config));
  }

  execute(config: Parameters<typeof serialize.execute>[0]): void {
    this.#buffer(serialize.execute(config));
  }

  describe(message: Parameters<typeof serialize.describe>[0]): void {
    this.#buffer(serialize.describe(message));
  }

  close(message: Parameters<typeof serialize.close>[0]): void {
    this.#buffer(serialize.close(message));
  }

  flush(): void {
    this.#deliver(serialize.flush());
  }

  sync(): void {
    this.#deliver(serialize.sync());
  }

  sendCopyFromChunk(chunk: Buffer): void {
    this.#deliver(serialize.copyData(chunk));
  }

  endCopyFrom(): void {
    this.#deliver(serialize.copyDone());
  }

  sendCopyFail(message: string): void {
    this.#deliver(serialize.copyFail(message));
  }

  end(): void {
    // Like a socket closing: pg waits for 'end'. The PGlite instance stays open; it is shared.
    this.#pending = [];
    this.#queue = this.#queue.then(() => {
      this.emit('end');
    });
    // The pool's next client gets this same object: the ended client must not hear its messages.
    for (const name of this.eventNames()) if (name !== 'newListener') this.removeAllListeners(name);
    this.#emitMessage = false;
  }
}

/**
 * `pg.Pool` settings that reach `pglite` in process. Each client gets a connection of its own: the
 * pool ends a client whose query failed and opens another, and the ended client's connection still
 * delivers its 'end' afterwards, which must not reach the new client.
 */
export function pglitePoolConfig(pglite: PGlite): pg.PoolConfig {
  class PgliteClient extends pg.Client {
    constructor(config: pg.ClientConfig = {}) {
      super({ ...config, connection: new PgliteConnection(pglite) } as pg.ClientConfig);
    }
  }
  return {
    Client: PgliteClient,
    // PGlite ignores these; pg wants them present.
    user: 'postgres',
    password: 'renkei',
    database: 'postgres',
    host: 'localhost',
    port: 5432,
  };
}
