import { Button, Menu } from '@mantine/core';
import { endpoints, type CsvEncoding } from '@renkei/contracts';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { downloadFile } from '../../imports/file-transfer.ts';
import type { VocListParams } from '../vocs.queries.ts';

/** Every VOC of the current filters (all pages) as CSV. */
export function VocExportButton({ params }: { params: VocListParams }) {
  const services = useServices();
  const [busy, setBusy] = useState(false);
  const onError = useMutationErrorHandler();
  const run = async (encoding: CsvEncoding) => {
    setBusy(true);
    try {
      const { page: _page, per_page: _perPage, ...conditions } = params;
      await downloadFile(services, endpoints.exportVocs, {
        query: { ...conditions, encoding },
        fallbackName: 'vocs.csv',
      });
    } catch (error) {
      onError(error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default" loading={busy} data-testid="voc-export">
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
