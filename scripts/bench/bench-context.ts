import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, openDatabase, type Database } from '../../libs/db/src/index.ts';

/** What the runner prints and records. `name`/`baseline.name` are accepted as aliases. */
export interface BenchFigure {
  metric?: string;
  name?: string;
  value: number;
  unit: string;
  baseline?: { label?: string; name?: string; value: number; unit?: string };
  ratio?: number;
  goal?: string;
  met?: boolean;
}

export interface BenchContext {
  /** True with `--embedded`: `openDatabase` gives PGlite. */
  embedded: boolean;
  /** A database for this bench: BENCH_DATABASE_URL, else a fresh one (local Postgres or PGlite). */
  openDatabase(options?: { poolMax?: number }): Promise<Database>;
  durationMs?: number;
  log(line: string): void;
}

export interface BenchDefinition {
  name: string;
  description: string;
  run(ctx: BenchContext): Promise<BenchFigure[]>;
}

const LOCAL_SOCKET = '/var/run/postgresql/.s.PGSQL.5432';

export function createBenchContext(options: { embedded: boolean; log: (line: string) => void }): BenchContext {
  // The local server through its Unix socket, as a co-located deployment would reach it: over
  // loopback TCP every round trip cost the Node process ~90 µs in writev on these machines (the tag
  // create bench went 1,530 -> 1,930/s, p99 24.5 -> 17 ms). Baselines use the same connection.
  if (!process.env.TEST_DATABASE_ADMIN_URL && fs.existsSync(LOCAL_SOCKET)) {
    process.env.TEST_DATABASE_ADMIN_URL = `postgres://postgres@${encodeURIComponent(path.dirname(LOCAL_SOCKET))}/postgres`;
  }
  return {
    embedded: options.embedded,
    log: options.log,
    ...(process.env.BENCH_DURATION_MS ? { durationMs: Number(process.env.BENCH_DURATION_MS) } : {}),
    async openDatabase(dbOptions = {}) {
      if (options.embedded) {
        const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-bench-'));
        const db = await openDatabase({ dataDir });
        return {
          ...db,
          async close() {
            await db.close();
            fs.rmSync(dataDir, { recursive: true, force: true });
          },
        };
      }
      if (process.env.BENCH_DATABASE_URL) {
        return openDatabase({ url: process.env.BENCH_DATABASE_URL, poolMax: dbOptions.poolMax ?? 24 });
      }
      return createTestDatabase({ poolMax: dbOptions.poolMax ?? 24 });
    },
  };
}

/**
 * Lets a bench file run on its own (`tsx scripts/bench/<name>.bench.ts [--embedded]`), printing its
 * figures without recording them; `pnpm bench` imports the file instead and does nothing here.
 */
export async function runIfMain(bench: BenchDefinition, moduleUrl: string): Promise<void> {
  if (moduleUrl !== `file://${process.argv[1]}`) return;
  const figures = await bench.run(
    createBenchContext({ embedded: process.argv.includes('--embedded'), log: (line) => console.log(line) }),
  );
  console.table(figures.map((f) => ({ ...f, baseline: f.baseline ? `${f.baseline.value} ${f.baseline.unit}` : '' })));
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function round(value: number, digits = 0): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
