// `pnpm bench [name…] [--embedded]`: runs scripts/bench/*.bench.ts, prints a table and appends a
// dated section to docs/benchmarks.md. Benchmarks are measurements, not tests: nothing here fails
// on a figure, it only records whether the goal was met.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createBenchContext, type BenchDefinition, type BenchFigure } from './bench/bench-context.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const embedded = args.includes('--embedded');
const only = args.filter((a) => !a.startsWith('--'));

const dir = path.join(root, 'scripts', 'bench');
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const benches: BenchDefinition[] = [];
for (const file of files) {
  const mod = (await import(pathToFileURL(path.join(dir, file)).href)) as { bench?: BenchDefinition };
  if (!mod.bench) throw new Error(`${file} exports no bench`);
  if (only.length === 0 || only.includes(mod.bench.name)) benches.push(mod.bench);
}
if (benches.length === 0) {
  console.error(
    `No benchmark matches ${only.join(', ')}. Known: ${files.map((f) => f.replace('.bench.ts', '')).join(', ')}`,
  );
  process.exit(1);
}

interface Row {
  bench: string;
  metric: string;
  value: string;
  baseline: string;
  ratio: string;
  goal: string;
}

const rows: Row[] = [];
const ctx = createBenchContext({ embedded, log: (line) => console.log(`  ${line}`) });
const engine = embedded
  ? 'embedded PGlite'
  : process.env.BENCH_DATABASE_URL
    ? 'BENCH_DATABASE_URL'
    : 'local PostgreSQL';
console.log(`Benchmarks on ${engine}, ${os.cpus().length} cores, load ${os.loadavg()[0]!.toFixed(1)}`);
for (const bench of benches) {
  console.log(`▶ ${bench.name}: ${bench.description}`);
  const started = Date.now();
  let figures: BenchFigure[];
  try {
    figures = await bench.run(ctx);
  } catch (error) {
    console.error(`  ${bench.name} failed:`, error);
    rows.push({
      bench: bench.name,
      metric: 'FAILED',
      value: String(error).slice(0, 80),
      baseline: '',
      ratio: '',
      goal: '',
    });
    continue;
  }
  console.log(`  done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  for (const f of figures) rows.push(toRow(bench.name, f));
}

console.table(rows);
appendMarkdown(rows);

function toRow(bench: string, f: BenchFigure): Row {
  const baselineValue = f.baseline?.value;
  const ratio = f.ratio ?? (baselineValue ? f.value / baselineValue : undefined);
  const met = f.met === undefined ? '' : f.met ? ' ✅' : ' ❌';
  return {
    bench,
    metric: f.metric ?? f.name ?? '?',
    value: `${formatNumber(f.value)} ${f.unit}`,
    baseline: f.baseline
      ? `${formatNumber(f.baseline.value)} ${f.baseline.unit ?? f.unit} (${f.baseline.label ?? f.baseline.name ?? ''})`
      : '',
    ratio: ratio === undefined ? '' : `${ratio.toFixed(2)}×`,
    goal: f.goal ? `${f.goal}${met}` : met.trim(),
  };
}

function formatNumber(n: number): string {
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 2 });
}

function appendMarkdown(rows: Row[]): void {
  const file = path.join(root, 'docs', 'benchmarks.md');
  const header = fs.existsSync(file)
    ? ''
    : '# Benchmarks\n\nAppended by `pnpm bench` (`tsx scripts/bench.ts [name…] [--embedded]`); newest last. ' +
      'Baselines run in the same process on the same database.\n';
  const stamp = new Date().toISOString().replace('T', ' ').slice(0, 16);
  const lines = [
    '',
    `## ${stamp} UTC — ${engine}`,
    '',
    `Machine: ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), load average ${os.loadavg()[0]!.toFixed(1)} at the end, Node ${process.version}.`,
    '',
    '| bench | metric | value | baseline | ratio | goal |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${[r.bench, r.metric, r.value, r.baseline, r.ratio, r.goal].map(escape).join(' | ')} |`),
    '',
  ];
  fs.appendFileSync(file, header + lines.join('\n'));
  console.log(`Appended to ${path.relative(root, file)}`);
}

function escape(cell: string): string {
  return cell.replace(/\|/g, '\\|');
}
