import { createHash } from 'node:crypto';
import { FileKindError, fileKindLabels, type ReferralFileKind } from './file-kind-error.ts';

/** What a parser yields per data row: the typed record, or why the row was left out. */
export type Parsed<T> =
  | { kind: 'record'; rowNumber: number; record: T }
  /** `wellFormed`: the row is of the file's kind but refused for what it says (another hospital's 施設コード). */
  | { kind: 'rejected'; rowNumber: number; reason: string; wellFormed?: true };

export function rejected(rowNumber: number, reason: string): Parsed<never> {
  return { kind: 'rejected', rowNumber, reason };
}

/** A row of the right kind refused for its content: it still tells the file is of the expected kind. */
export function refused(rowNumber: number, reason: string): Parsed<never> {
  return { kind: 'rejected', rowNumber, reason, wellFormed: true };
}

/** Rows looked at before a file with no readable row is declared to be of the wrong kind. */
export const kindSampleRows = 20;

/**
 * Passes items through once one record has been read. If the first `kindSampleRows` data rows (or the
 * whole file, if shorter) are all rejected, the file is not of the expected kind: throw before
 * anything is handed out, naming what was expected and the first reasons. Synchronous, so a parser
 * pays no extra await per row.
 */
export class KindGate<T> {
  private held: Parsed<T>[] | null = [];
  constructor(
    private readonly expected: ReferralFileKind,
    private readonly expectation: string,
  ) {}

  accept(item: Parsed<T>): readonly Parsed<T>[] {
    const held = this.held;
    if (held === null) return [item];
    held.push(item);
    if (item.kind === 'record' || item.wellFormed) {
      this.held = null;
      return held;
    }
    if (held.length >= kindSampleRows) throw kindError(held, this.expected, this.expectation);
    return [];
  }

  finish(): void {
    if (this.held !== null && this.held.length > 0) throw kindError(this.held, this.expected, this.expectation);
  }
}

function kindError(held: Parsed<unknown>[], expected: ReferralFileKind, expectation: string): FileKindError {
  const reasons = held
    .slice(0, 3)
    .map((r) => (r.kind === 'rejected' ? `${r.rowNumber}行目: ${r.reason}` : ''))
    .join('、');
  return new FileKindError(
    expected,
    `${fileKindLabels[expected]}として読めません。${expectation}。読めた行がありません（${reasons}）`,
  );
}

/** 患者ID and データ識別番号 are compared without leading zeros (DPC pads the patient number to 10). */
export function patientKeyOf(patientId: string): string {
  return patientId.replace(/^0+(?=.)/, '');
}

/** A fixed-length identity from normalised parts: fit for a unique index, stable across runs. */
export function hashIdentity(prefix: string, parts: readonly string[]): string {
  return `${prefix}:${createHash('sha256').update(parts.join('\u001f')).digest('base64url').slice(0, 27)}`;
}
