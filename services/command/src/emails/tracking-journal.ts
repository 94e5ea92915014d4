import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { NewEvent } from '@renkei/event-store';

/** A journal file: the hits written to it, until each is stored or given up. */
export interface JournalSegment {
  file: string;
  openedAt: number;
  fd: number | null;
  written: number;
  outstanding: number;
}

interface JournaledHit {
  stream: string;
  event: NewEvent & { id: string };
}

/** Journals open in this process (tests and the embedded install may run several apps in one). */
const liveSessions = new Set<string>();

/** Files of another machine (another container) untouched this long are taken as left by a dead process. */
const foreignAfterMs = 60 * 60_000;

/**
 * The tracking hits a process answered and has not stored yet, on disk: each hit is one line,
 * written (a `write`, into the page cache: it outlives the process, not the machine) before its
 * answer leaves. Lines go to the current segment; a batch leaving after it is a second old starts a
 * new one, and a segment is removed once every hit in it is stored or given up. A process starting up takes the segments of
 * dead processes (same machine: their process id is gone or is now its own; another machine: not
 * written for an hour), stores their hits (ids: a hit stored twice counts once) and removes them.
 */
export function openTrackingJournal(dir: string, options: { rotateMs?: number } = {}) {
  const rotateMs = options.rotateMs ?? 1_000;
  fs.mkdirSync(dir, { recursive: true });
  const host = os.hostname().replace(/[^A-Za-z0-9-]/g, '_');
  const session = randomUUID().slice(0, 8);
  const prefix = `${host}.${process.pid}.${session}.`;
  liveSessions.add(session);
  let seq = 0;
  const open = (): JournalSegment => {
    const file = path.join(dir, `${prefix}${String(seq++).padStart(8, '0')}.jsonl`);
    return { file, openedAt: Date.now(), fd: fs.openSync(file, 'a'), written: 0, outstanding: 0 };
  };
  let current = open();
  // Hits answered while the batcher was full (back-pressure's time limit): kept here only, read back
  // when there is room. One file at a time; `read` and `written` are byte offsets.
  let spillSeq = 0;
  let spill: { file: string; fd: number; written: number; read: number } | null = null;

  // A segment another process took over is gone already (force); anything else that fails is left
  // for the next start, whose recovery stores its hits again (ids: nothing counted twice).
  const remove = (segment: JournalSegment) => {
    try {
      fs.rmSync(segment.file, { force: true });
    } catch {
      // see above
    }
  };

  function isLeftBehind(name: string): boolean {
    const [fileHost, pid, fileSession] = name.split('.');
    if (fileHost === undefined || pid === undefined || fileSession === undefined) return false;
    if (fileHost !== host) {
      try {
        return Date.now() - fs.statSync(path.join(dir, name)).mtimeMs > foreignAfterMs;
      } catch {
        return false;
      }
    }
    if (Number(pid) === process.pid) return !liveSessions.has(fileSession);
    try {
      process.kill(Number(pid), 0);
      return false;
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ESRCH';
    }
  }

  return {
    /** Writes the hit down before its answer; the hit keeps the segment to mark it done. */
    write(hit: JournaledHit): JournalSegment {
      fs.writeSync(current.fd!, `${JSON.stringify(hit)}\n`);
      current.written++;
      current.outstanding++;
      return current;
    },
    /**
     * The next hits go to a new segment (a batch leaves) once the current one is a second old (or
     * holds 10,000 hits); the old one goes when its hits are done. Not at every batch: creating and
     * removing a file are synchronous metadata writes on the answers' thread, which a busy disk can
     * hold for milliseconds; once a second they cost nothing visible, and a restart after a kill
     * stores at most a second more of hits again (their ids keep them counted once).
     */
    rotate(): void {
      if (current.written === 0) return;
      if (current.written < 10_000 && Date.now() - current.openedAt < rotateMs) return;
      const next = open(); // first: when it fails, the current segment goes on
      const old = current;
      current = next;
      fs.closeSync(old.fd!);
      old.fd = null;
      if (old.outstanding === 0) remove(old);
    },
    /** The hit is stored (or given up, logged): its segment goes when it was the last. */
    done(segment: JournalSegment): void {
      segment.outstanding--;
      if (segment.outstanding === 0 && segment.fd === null) remove(segment);
    },
    /**
     * The hits of segments left by dead processes, and a function removing those segments (called once
     * the hits are written down again here).
     */
    recover(): { hits: JournaledHit[]; release(): { name: string; error: unknown }[] } {
      const files = fs
        .readdirSync(dir)
        .filter((name) => name.endsWith('.jsonl') && !name.startsWith(prefix) && isLeftBehind(name));
      const hits: JournaledHit[] = [];
      const read: string[] = [];
      for (const name of files) {
        let text: string;
        try {
          text = fs.readFileSync(path.join(dir, name), 'utf8');
        } catch {
          // Taken by another process starting at the same time, or unreadable now: left for a later start.
          continue;
        }
        read.push(name);
        for (const line of text.split('\n')) {
          if (!line) continue;
          try {
            hits.push(JSON.parse(line) as JournaledHit);
          } catch {
            // A line cut by the crash: its hit was never answered.
          }
        }
      }
      return {
        hits,
        /** Removes the segments read; answers those it could not remove (read again at a later start). */
        release: () =>
          read.flatMap((name) => {
            try {
              fs.rmSync(path.join(dir, name), { force: true });
              return [];
            } catch (error) {
              return [{ name, error }];
            }
          }),
      };
    },
    /**
     * Writes down a hit the batcher has no room for: it is kept on disk only (memory stays bounded)
     * until `unspill` reads it back; a killed process leaves it to the next start like a segment.
     */
    spill(hit: JournaledHit): void {
      spill ??= (() => {
        const file = path.join(dir, `${prefix}spill-${String(spillSeq++).padStart(8, '0')}.jsonl`);
        return { file, fd: fs.openSync(file, 'a+'), written: 0, read: 0 };
      })();
      spill.written += fs.writeSync(spill.fd, `${JSON.stringify(hit)}\n`);
    },
    /**
     * Reads back at most `max` spilled hits, oldest first. The caller takes them in (writes them to a
     * segment), then calls `dropSpill` when `drained`: the file goes only once its hits are elsewhere.
     */
    unspill(max: number): { hits: JournaledHit[]; drained: boolean } {
      if (!spill || max <= 0) return { hits: [], drained: spill === null };
      const hits: JournaledHit[] = [];
      const chunk = Buffer.alloc(Math.min(spill.written - spill.read, 1 << 20));
      const length = fs.readSync(spill.fd, chunk, 0, chunk.length, spill.read);
      let start = 0;
      while (hits.length < max) {
        const end = chunk.indexOf(10, start);
        if (end < 0 || end >= length) break;
        hits.push(JSON.parse(chunk.toString('utf8', start, end)) as JournaledHit);
        start = end + 1;
      }
      spill.read += start;
      return { hits, drained: spill.read === spill.written };
    },
    /** Every spilled hit is read back and written to a segment: the spill file goes. */
    dropSpill(): void {
      if (!spill || spill.read !== spill.written) return;
      fs.closeSync(spill.fd);
      try {
        fs.rmSync(spill.file, { force: true });
      } catch {
        // Left for a later start: its hits are stored again there, counted once (ids).
      }
      spill = null;
    },
    /** At a clean close, after every hit is done: the current segment goes too. */
    close(): void {
      liveSessions.delete(session);
      // Spilled hits not read back stay on disk: the next start stores them.
      if (spill) fs.closeSync(spill.fd);
      spill = null;
      if (current.fd !== null) fs.closeSync(current.fd);
      current.fd = null;
      if (current.outstanding === 0) remove(current);
    },
  };
}

export type TrackingJournal = ReturnType<typeof openTrackingJournal>;
