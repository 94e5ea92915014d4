import { Button, Menu, type ButtonProps } from '@mantine/core';
import type { CsvEncoding } from '@renkei/contracts';
import { useState } from 'react';
import { useMutationErrorHandler } from '../errors/useMutationErrorHandler.ts';

/**
 * 「CSV出力」 with the two encodings people ask for: UTF-8 with a BOM, and Shift_JIS for Excel on
 * Windows. `download` fetches and saves the file; its failure is reported like any write's.
 */
export function CsvExportButton({
  download,
  testId,
  ...button
}: { download: (encoding: CsvEncoding) => Promise<unknown>; testId?: string } & ButtonProps) {
  const [busy, setBusy] = useState(false);
  const onError = useMutationErrorHandler();
  const run = async (encoding: CsvEncoding) => {
    setBusy(true);
    try {
      await download(encoding);
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
          CSV出力
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={() => void run('utf-8')}>UTF-8（BOM付き）</Menu.Item>
        <Menu.Item onClick={() => void run('shift_jis')}>Shift_JIS（Excel向け）</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
