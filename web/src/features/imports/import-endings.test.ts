import type { ImportStatus } from '@renkei/contracts';
import { describe, expect, it } from 'vitest';
import { importEndings } from './import-endings.ts';

const row = (id: string, status: ImportStatus, minute: number) => ({
  id,
  status,
  created_at: `2026-11-29T10:${String(minute).padStart(2, '0')}:00.000Z`,
});

describe('import endings', () => {
  it('tell an import seen running that is over now, once', () => {
    const ended = importEndings();
    expect(ended([row('a', 'waiting', 5), row('old', 'completed', 1)])).toBe(false);
    expect(ended([row('a', 'processing', 5), row('old', 'completed', 1)])).toBe(false);
    expect(ended([row('a', 'completed', 5), row('old', 'completed', 1)])).toBe(true);
    expect(ended([row('a', 'completed', 5), row('old', 'completed', 1)])).toBe(false);
  });

  it('count a failed run as over: its recorded chunks stay in', () => {
    const ended = importEndings();
    ended([row('a', 'processing', 5)]);
    expect(ended([row('a', 'failed', 5)])).toBe(true);
  });

  it('end nothing on the first answer, whatever it shows', () => {
    expect(importEndings()([row('a', 'completed', 5), row('b', 'failed', 4)])).toBe(false);
  });

  it('tell an import newer than any seen that is already over (done before the first poll)', () => {
    const ended = importEndings();
    ended([row('old', 'completed', 1)]);
    expect(ended([row('new', 'completed', 9), row('old', 'completed', 1)])).toBe(true);
    expect(ended([row('new', 'completed', 9), row('old', 'completed', 1)])).toBe(false);
    const fromEmpty = importEndings();
    fromEmpty([]);
    expect(fromEmpty([row('first', 'completed', 2)])).toBe(true);
  });

  it('do not take older imports first seen on another page for endings', () => {
    const ended = importEndings();
    ended([row('p1', 'completed', 30)]);
    expect(ended([row('p2a', 'completed', 10), row('p2b', 'failed', 9)])).toBe(false);
  });

  it('remember an import seen running across pages of the history', () => {
    const ended = importEndings();
    ended([row('a', 'processing', 30)]);
    expect(ended([row('older', 'completed', 10)])).toBe(false);
    expect(ended([row('a', 'completed', 30)])).toBe(true);
  });
});
