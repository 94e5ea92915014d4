export type OperationResult = { ok: true; output: string } | { ok: false; error: string };

/** A failure as the operator should read it: the Japanese message and every field error. */
export function describeError(error: unknown): string {
  // Duck-typed HttpError (@renkei/contracts), so the CLI's relay path does not load the registry.
  if (error instanceof Error && typeof (error as { status?: unknown }).status === 'number') {
    const { status, extra } = error as Error & {
      status: number;
      extra?: { errors?: { field: string; message: string }[] };
    };
    const fields = (extra?.errors ?? []).map((e) => `  ${e.field}: ${e.message}`);
    return [`${error.message} (${status})`, ...fields].join('\n');
  }
  return error instanceof Error ? error.message : String(error);
}
