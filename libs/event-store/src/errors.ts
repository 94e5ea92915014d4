export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly stream: string,
    readonly expected: unknown,
    readonly actual: number | null,
  ) {
    super(`Stream ${stream}: expected revision ${String(expected)}, actual ${actual ?? 'none'}`);
  }
}

export class StreamNotFoundError extends Error {
  constructor(readonly stream: string) {
    super(`Stream ${stream} not found`);
  }
}

/** A guard (Postgres store) refused an append; `detail` is what the guard function answered. */
export class AppendGuardRefusedError extends Error {
  constructor(
    readonly stream: string,
    readonly detail: unknown,
  ) {
    super(`Stream ${stream}: the append's guard refused it`);
  }
}
