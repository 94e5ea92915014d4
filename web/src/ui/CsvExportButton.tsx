import { Button, Menu, type ButtonProps } from '@mantine/core';
import type { CsvEncoding } from '@renkei/contracts';
import { useState } from 'react';
import { useMutationErrorHandler } from '../errors/useMutationErrorHandler.ts';

/**
 * 「CSV出力」 with the two encodings people ask for: UTF-8 with a BOM, and Shift_JIS for Excel on
 * Windows; with `downloadExcel`, 「CSV・Excel出力」 and an Excel workbook too, which keeps codes with a
 * leading zero (医療機関コード of 北海道–栃木) as they are. `download` fetches and saves the file; its
 * failure is reported like any write's.
 */
export function CsvExportButton({
  download,
  downloadExcel,
  testId,
  ...button
}: {
  download: (encoding: CsvEncoding) => Promise<unknown>;
  downloadExcel?: () => Promise<unknown>;
  testId?: string;
} & ButtonProps) {
  const [busy, setBusy] = useState(false);
  const onError = useMutationErrorHandler();
  const run = async (save: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await save();
    } catch (error) {
      onError(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default" loading={busy} data-testid={testId} {...button}>
          {downloadExcel ? 'CSV・Excel出力' : 'CSV出力'}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={() => void run(() => download('utf-8'))}>UTF-8（BOM付き）</Menu.Item>
        <Menu.Item onClick={() => void run(() => download('shift_jis'))}>
          {downloadExcel ? 'Shift_JIS' : 'Shift_JIS（Excel向け）'}
        </Menu.Item>
        {downloadExcel && <Menu.Item onClick={() => void run(downloadExcel)}>Excel（.xlsx）</Menu.Item>}
      </Menu.Dropdown>
    </Menu>
  );
}
