import { Button, Menu } from '@mantine/core';
import { endpoints, type CsvEncoding } from '@renkei/contracts';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { downloadFile } from '../../imports/file-transfer.ts';
import type { CommunicationSearchInput } from '../communications.queries.ts';

/** The whole result of the current search (every page) as CSV. */
export function ExportButton({ body }: { body: CommunicationSearchInput }) {
  const services = useServices();
  const [busy, setBusy] = useState(false);
  const onError = useMutationErrorHandler();
  const run = async (encoding: CsvEncoding) => {
    setBusy(true);
    try {
      const { page: _page, per_page: _perPage, ...conditions } = body;
      await downloadFile(services, endpoints.exportCommunications, {
        body: { ...conditions, encoding },
        fallbackName: 'communications.csv',
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
        <Button variant="default" size="md" loading={busy} visibleFrom="sm">
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
