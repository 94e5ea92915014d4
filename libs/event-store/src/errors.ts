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
