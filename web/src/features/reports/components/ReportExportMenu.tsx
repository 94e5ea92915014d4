import { Button, Menu, type ButtonProps } from '@mantine/core';
import { useState } from 'react';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import type { ReportFileFormat } from '../report-format.ts';

/**
 * A report's 「出力」: CSV in UTF-8 with a BOM or in Shift_JIS, and an Excel workbook, which keeps codes
 * with a leading zero (医療機関コード of 北海道–栃木) as they are. `download` fetches and saves the file; its
 * failure is reported like any write's.
 */
export function ReportExportMenu({
  download,
  testId,
  ...button
}: { download: (format: ReportFileFormat) => Promise<unknown>; testId?: string } & ButtonProps) {
  const [busy, setBusy] = useState(false);
  const onError = useMutationErrorHandler();
  const run = async (format: ReportFileFormat) => {
    setBusy(true);
    try {
      await download(format);
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
          CSV・Excel出力
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={() => void run('utf-8')}>UTF-8（BOM付き）</Menu.Item>
        <Menu.Item onClick={() => void run('shift_jis')}>Shift_JIS</Menu.Item>
        <Menu.Item onClick={() => void run('xlsx')}>Excel（.xlsx）</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
