import { endpoints } from '@renkei/contracts';
import { useServices } from '../../../app/services-context.tsx';
import { CsvExportButton } from '../../../ui/CsvExportButton.tsx';
import { downloadFile } from '../../imports/file-transfer.ts';
import type { VocListParams } from '../vocs.queries.ts';

/** Every VOC of the current filters (all pages) as CSV. */
export function VocExportButton({ params }: { params: VocListParams }) {
  const services = useServices();
  const { page: _page, per_page: _perPage, ...conditions } = params;
  return (
    <CsvExportButton
      testId="voc-export"
      download={(encoding) =>
        downloadFile(services, endpoints.exportVocs, { query: { ...conditions, encoding }, fallbackName: 'vocs.csv' })
      }
    />
  );
}
