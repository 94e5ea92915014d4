import { HttpError } from '@renkei/contracts';

export type OperationResult = { ok: true; output: string } | { ok: false; error: string };

/** A failure as the operator should read it: the Japanese message and every field error. */
export function describeError(error: unknown): string {
  if (error instanceof HttpError) {
    const fields = (error.extra.errors ?? []).map((e) => `  ${e.field}: ${e.message}`);
    return [`${error.message} (${error.status})`, ...fields].join('\n');
  }
  return error instanceof Error ? error.message : String(error);
}
