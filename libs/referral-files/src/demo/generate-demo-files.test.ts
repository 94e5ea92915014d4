import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildInstitutionCode } from '@renkei/institution-master';
import { collect } from '../test-files.ts';
import { readListHeader } from '../lists/list-file.ts';
import { suggestMapping } from '../lists/list-columns.ts';
import { parseReferralList, parseReverseReferralList } from '../lists/referral-lists.ts';
import { parseFf1 } from '../dpc/ff1.ts';
import { parseDFile } from '../dpc/d-file.ts';
import { parseEf } from '../dpc/ef.ts';
import { StayAssembler } from '../dpc/stay-assembler.ts';
import { demoReferrers, generateDemoReferralFiles, type GenerateDemoReferralOptions } from './generate-demo-files.ts';

const institutions = Array.from({ length: 60 }, (_, i) => ({
  code: buildInstitutionCode({
    prefectureCode: 22,
    scoreTable: i % 10 === 9 ? 3 : 1,
    districtNumber: 1 + (i % 30),
    institutionNumber: 1000 + i * 7,
  }),
  name: i % 7 === 0 ? `医療法人社団 青葉会, 第${i}クリニック` : `デモ${i}医院`,
}));
const options: GenerateDemoReferralOptions = {
  seed: 42,
  institutions,
  ownInstitutionCode: buildInstitutionCode({
    prefectureCode: 22,
    scoreTable: 1,
    districtNumber: 1,
    institutionNumber: 2001,
  }),
  fiscalYears: [2023, 2024],
  referralsPerYear: 1500,
  otherAdmissionsPerYear: 300,
};
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'referral-demo-'));

describe('generateDemoReferralFiles', () => {
  it('writes the same bytes for the same seed, other bytes for another', async () => {
    const [a, b, c] = [tmp(), tmp(), tmp()];
    const first = await generateDemoReferralFiles(a, options);
    await generateDemoReferralFiles(b, options);
    await generateDemoReferralFiles(c, { ...options, seed: 43 });
    expect(first.files.map((f) => f.kind)).toEqual([
      'referral',
      'reverse_referral',
      'ff1_file',
      'd_file',
      'hospital_admission_ef_file',
      'ff1_file',
      'd_file',
      'hospital_admission_ef_file',
    ]);
    for (const f of first.files) {
      const name = path.basename(f.path);
      expect(fs.readFileSync(path.join(b, name)).equals(fs.readFileSync(f.path)), name).toBe(true);
    }
    const referral = path.basename(first.files[0]!.path);
    expect(fs.readFileSync(path.join(c, referral)).equals(fs.readFileSync(first.files[0]!.path))).toBe(false);
  });

  it('writes nothing after `until`: no referral, stay, discharge or reverse referral, and a partial last month', async () => {
    const dir = tmp();
    const demo = await generateDemoReferralFiles(dir, { ...options, until: '2024-11-15' });
    const [referralFile, reverseFile, ...dpcFiles] = demo.files;
    const referrals = await collect(
      parseReferralList(referralFile!.path, { mapping: demo.referralMapping, prefectureCode: 22 }),
    );
    const dates = referrals.records.map((r) => r.referralDate).sort();
    expect(dates[dates.length - 1]! <= '2024-11-15').toBe(true);
    // November has data up to the 15th only: about half a month of referrals, not none and not all.
    const november = dates.filter((d) => d.startsWith('2024-11')).length;
    const october = dates.filter((d) => d.startsWith('2024-10')).length;
    expect(november).toBeGreaterThan(october * 0.3);
    expect(november).toBeLessThan(october * 0.75);
    const reverse = await collect(
      parseReverseReferralList(reverseFile!.path, { mapping: demo.reverseReferralMapping, prefectureCode: 22 }),
    );
    expect(reverse.records.every((r) => r.reverseReferralDate <= '2024-11-15')).toBe(true);
    const ff1 = dpcFiles.filter((f) => f.kind === 'ff1_file');
    const stays = new StayAssembler();
    for (const f of ff1) (await collect(parseFf1(f.path))).records.forEach((x) => stays.addFf1(x));
    const all = stays.stays();
    expect(all.length).toBeGreaterThan(0);
    expect(all.every((s) => s.dischargeDate !== null && s.dischargeDate <= '2024-11-15')).toBe(true);
  });

  // Generates and parses every demo file: CPU-bound, several seconds on a loaded machine.
  it('writes files that parse back with no rejection, the mapping suggested from their own headers', async () => {
    const dir = tmp();
    const demo = await generateDemoReferralFiles(dir, options);
    const [referralFile, reverseFile, ...dpcFiles] = demo.files;
    const referralHeader = await readListHeader(referralFile!.path);
    expect(referralHeader.format).toEqual({ encoding: 'shift_jis', delimiter: ',' });
    expect(referralHeader.headerNames).not.toContain('紹介日');
    expect(suggestMapping(referralHeader.headerNames!)).toEqual(demo.referralMapping);
    expect(suggestMapping((await readListHeader(reverseFile!.path)).headerNames!, 'reverse_referral')).toEqual(
      demo.reverseReferralMapping,
    );

    const referrals = await collect(
      parseReferralList(referralFile!.path, { mapping: demo.referralMapping, prefectureCode: 22 }),
    );
    expect(referrals.rejected).toEqual([]);
    expect(referrals.records).toHaveLength(referralFile!.rows);
    expect(new Set(referrals.records.map((r) => r.institutionCode)).has(institutions[9]!.code)).toBe(false);
    const reverse = await collect(
      parseReverseReferralList(reverseFile!.path, { mapping: demo.reverseReferralMapping, prefectureCode: 22 }),
    );
    expect(reverse.rejected).toEqual([]);
    expect(reverse.records).toHaveLength(reverseFile!.rows);

    const stays = new StayAssembler();
    for (const f of dpcFiles) {
      if (f.kind === 'ff1_file') {
        const r = await collect(parseFf1(f.path));
        expect(r.rejected).toEqual([]);
        expect(r.records).toHaveLength(f.rows);
        r.records.forEach((x) => stays.addFf1(x));
      } else if (f.kind === 'd_file') {
        const r = await collect(parseDFile(f.path));
        expect(r.rejected).toEqual([]);
        r.records.forEach((x) => stays.addD(x));
      } else {
        const r = await collect(parseEf(f.path, { kind: 'inpatient' }));
        expect(r.rejected).toEqual([]);
        r.records.forEach((x) => stays.addEf(x));
      }
    }
    const all = stays.stays();
    expect(all.length).toBeGreaterThan(500);
    expect(all.every((s) => s.sources.ff1 && s.sources.ef && s.sources.d && s.dpcCode && s.icd10Code)).toBe(true);
    // FF1 and EF tell the same operation: the stay keeps one.
    expect(
      all.filter((s) => s.kcode).every((s) => s.operations.length === 1 && s.operations[0]!.source === 'ff1'),
    ).toBe(true);
    const referred = new Set(referrals.records.map((r) => r.patientKey));
    const joined = all.filter((s) => s.referralIn && referred.has(s.patientKey));
    expect(joined.length).toBe(all.filter((s) => s.referralIn).length);
    expect(joined.length).toBeGreaterThan(200);
  }, 60_000);

  it('names the referrers as the files show them: largest first, and none after its stop', async () => {
    const demo = await generateDemoReferralFiles(tmp(), options);
    const referralFile = demo.files.find((f) => f.kind === 'referral')!;
    const { records } = await collect(
      parseReferralList(referralFile.path, { mapping: demo.referralMapping, prefectureCode: 22 }),
    );
    const referrers = demoReferrers(options);
    expect(referrers.every((r, i) => i === 0 || referrers[i - 1]!.base >= r.base)).toBe(true);
    const byCode = new Map<string, string[]>();
    for (const r of records)
      byCode.set(r.institutionCode!, [...(byCode.get(r.institutionCode!) ?? []), r.referralDate]);
    // Every code the list names is a referrer, and the largest sends more than the median one.
    expect([...byCode.keys()].every((code) => referrers.some((r) => r.code === code))).toBe(true);
    const count = (code: string) => byCode.get(code)?.length ?? 0;
    expect(count(referrers[0]!.code)).toBeGreaterThan(count(referrers[Math.floor(referrers.length / 2)]!.code));
    const stopping = referrers.filter((r) => r.stoppedFrom !== null);
    expect(stopping.length).toBeGreaterThan(0);
    for (const r of stopping) expect((byCode.get(r.code) ?? []).filter((d) => d >= r.stoppedFrom!)).toEqual([]);
  });
});
