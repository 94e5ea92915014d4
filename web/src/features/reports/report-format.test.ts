import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ApiClient } from '../../api/api-client.ts';
import { downloadReport } from './report-format.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** The file a download saved: its name and bytes (jsdom's Blob read through FileReader, as a browser would). */
function catchDownload() {
  const saved: { name?: string; blob?: Blob } = {};
  vi.spyOn(URL, 'createObjectURL').mockImplementation((blob) => {
    saved.blob = blob as Blob;
    return 'blob:test';
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => {});
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.name = this.download;
  });
  const bytes = () =>
    new Promise<ArrayBuffer>((resolve) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result as ArrayBuffer);
      reader.readAsArrayBuffer(saved.blob!);
    });
  return { saved, bytes };
}

// Two pages of 1000 rows would be the real case; one page shows the shape. A code of 北海道 (01…).
const api = {
  medicalInstitutionReportsResults: vi.fn(async () => ({
    columns: [
      { key: 'medical_institution_code', label: '医療機関コード', value_type: 'string' },
      { key: 'referral_count', label: '紹介数（合計）', value_type: 'integer' },
      { key: 'hospital_admission_rate', label: '入院率', value_type: 'rate' },
    ],
    rows: [{ id: id(1), medical_institution_code: '0112345678', referral_count: 12, hospital_admission_rate: 0.25 }],
    meta: { total_count: 1, page: 1, per_page: 1000, total_pages: 1 },
  })),
} as unknown as ApiClient;

afterEach(() => vi.restoreAllMocks());

describe('report download', () => {
  it('saves an Excel workbook in which a code keeps its leading zero and counts stay numbers', async () => {
    const { saved, bytes } = catchDownload();
    await downloadReport(api, 'medical_institution_reports', { id: id(9), name: '紹介元/北海道' }, 'xlsx');
    expect(saved.name).toBe('紹介元_北海道.xlsx');
    const Excel = await import('exceljs');
    const workbook = new Excel.Workbook();
    await workbook.xlsx.load(await bytes());
    const row = workbook.worksheets[0]!.getRow(2);
    expect(workbook.worksheets[0]!.getRow(1).values).toEqual([
      undefined,
      '医療機関コード',
      '紹介数（合計）',
      '入院率(%)',
    ]);
    expect(row.getCell(1).value).toBe('0112345678');
    expect(row.getCell(2).value).toBe(12);
    expect(row.getCell(3).value).toBe(25);
  });

  it('saves CSV in the encoding asked for', async () => {
    const { saved, bytes } = catchDownload();
    await downloadReport(api, 'medical_institution_reports', { id: id(9), name: '紹介元' }, 'utf-8');
    expect(saved.name).toBe('紹介元.csv');
    const data = new Uint8Array(await bytes());
    expect([...data.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(data.subarray(3))).toBe(
      '医療機関コード,紹介数（合計）,入院率(%)\r\n0112345678,12,25\r\n',
    );
  });
});
