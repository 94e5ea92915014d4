import type { Position } from './types.ts';

export const startPosition: Position = { primary: 0n, secondary: 0n };

export function comparePositions(a: Position, b: Position): number {
  if (a.primary !== b.primary) return a.primary < b.primary ? -1 : 1;
  if (a.secondary !== b.secondary) return a.secondary < b.secondary ? -1 : 1;
  return 0;
}

/** `"<primary>.<secondary>"`: the X-Position / X-Min-Position header value. */
export function formatPosition(p: Position): string {
  return `${p.primary}.${p.secondary}`;
}

export function parsePosition(value: string): Position | null {
  const m = /^(\d{1,20})\.(\d{1,20})$/.exec(value.trim());
  return m ? { primary: BigInt(m[1]!), secondary: BigInt(m[2]!) } : null;
}
