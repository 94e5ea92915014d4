/**
 * Prints generator and parser throughput on the demo files (not a test: figures, not assertions).
 * Run: pnpm tsx libs/referral-files/src/bench/measure-parsers.ts [dir]
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { generateInstitutionMaster, readMasterFile } from '@renkei/institution-master';
import { generateDemoReferralFiles } from '../demo/generate-demo-files.ts';
import { parseReferralList, parseReverseReferralList } from '../lists/referral-lists.ts';
import { parseFf1 } from '../dpc/ff1.ts';
import { parseEf } from '../dpc/ef.ts';
import { parseDFile } from '../dpc/d-file.ts';
import { StayAssembler } from '../dpc/stay-assembler.ts';
import type { Parsed } from '../parsed.ts';

const dir = process.argv[2] ?? fs.mkdtempSync(path.join(os.tmpdir(), 'referral-bench-'));
const masterPath = path.join(dir, 'master.csv');
await generateInstitutionMaster(masterPath, { count: 3000, seed: 7 });
const institutions: { code: string; name: string }[] = [];
for await (const { record } of readMasterFile(masterPath)) institutions.push({ code: record.code, name: record.name });

let t = performance.now();
const demo = await generateDemoReferralFiles(path.join(dir, 'demo'), {
  seed: 1,
  institutions,
  ownInstitutionCode: institutions.find((i) => i.code[2] === '1')!.code,
  fiscalYears: [2022, 2023, 2024],
});
const bytes = demo.files.reduce((s, f) => s + fs.statSync(f.path).size, 0);
console.log(`generate: ${(performance.now() - t).toFixed(0)} ms, ${(bytes / 1e6).toFixed(1)} MB`);
for (const f of demo.files) console.log(`  ${path.basename(f.path)}: ${f.rows} rows`);

async function measure<T>(label: string, rows: number, items: AsyncIterable<Parsed<T>>, each?: (r: T) => void) {
  const start = performance.now();
  const cpu = process.cpuUsage();
  let records = 0;
  let rejected = 0;
  for await (const item of items) {
    if (item.kind === 'record') {
      records++;
      each?.(item.record);
    } else rejected++;
  }
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000;
  // The machine is shared: CPU time says what the code costs, wall time what the load allowed.
  console.log(
    `${label}: ${rows} rows, wall ${ms.toFixed(0)} ms (${Math.round(rows / (ms / 1000)).toLocaleString('en')} rows/s), cpu ${cpuMs.toFixed(0)} ms (${Math.round(rows / (cpuMs / 1000)).toLocaleString('en')} rows/s); records ${records}, rejected ${rejected}; heap ${Math.round(process.memoryUsage().heapUsed / 1e6)} MB`,
  );
}

const stays = new StayAssembler();
const prefectureCode = 22;
for (const f of demo.files) {
  const name = path.basename(f.path);
  if (f.kind === 'referral')
    await measure(name, f.rows, parseReferralList(f.path, { mapping: demo.referralMapping, prefectureCode }));
  else if (f.kind === 'reverse_referral')
    await measure(
      name,
      f.rows,
      parseReverseReferralList(f.path, { mapping: demo.reverseReferralMapping, prefectureCode }),
    );
  else if (f.kind === 'ff1_file') await measure(name, f.rows, parseFf1(f.path), (r) => stays.addFf1(r));
  else if (f.kind === 'd_file') await measure(name, f.rows, parseDFile(f.path), (r) => stays.addD(r));
  else await measure(name, f.rows, parseEf(f.path, { kind: 'inpatient' }), (r) => stays.addEf(r));
}
t = performance.now();
const all = stays.stays();
console.log(
  `assemble: ${all.length} stays, ${all.filter((s) => s.kcode).length} operated, ${all.filter((s) => s.dpcCode).length} with DPC, in ${(performance.now() - t).toFixed(0)} ms`,
);

// A bigger EF (all years ×4, ~400k rows) to show the rate once warm and that memory stays flat.
const big = path.join(dir, 'big-ef.txt');
fs.writeFileSync(big, '');
for (let i = 0; i < 4; i++)
  for (const f of demo.files)
    if (f.kind === 'hospital_admission_ef_file') fs.appendFileSync(big, fs.readFileSync(f.path));
const bigRows = demo.files.filter((f) => f.kind === 'hospital_admission_ef_file').reduce((s, f) => s + f.rows, 0) * 4;
await measure('big EF (4x)', bigRows, parseEf(big, { kind: 'inpatient' }));
const bigList = path.join(dir, 'big-list.csv');
const listFile = demo.files.find((f) => f.kind === 'referral')!;
const listBody = fs.readFileSync(listFile.path);
const firstBreak = listBody.indexOf(10) + 1;
fs.writeFileSync(bigList, listBody);
for (let i = 0; i < 7; i++) fs.appendFileSync(bigList, listBody.subarray(firstBreak));
await measure(
  'big referral list (8x)',
  listFile.rows * 8,
  parseReferralList(bigList, { mapping: demo.referralMapping, prefectureCode }),
);
