import { endpoints } from '@renkei/contracts';
import { useServices } from '../../../app/services-context.tsx';
import { CsvExportButton } from '../../../ui/CsvExportButton.tsx';
import { downloadFile } from '../../imports/file-transfer.ts';
import type { CommunicationSearchInput } from '../communications.queries.ts';

/** The whole result of the current search (every page) as CSV. */
export function ExportButton({ body }: { body: CommunicationSearchInput }) {
  const services = useServices();
  const { page: _page, per_page: _perPage, ...conditions } = body;
  return (
    <CsvExportButton
      size="md"
      visibleFrom="sm"
      download={(encoding) =>
        downloadFile(services, endpoints.exportCommunications, {
          body: { ...conditions, encoding },
          fallbackName: 'communications.csv',
        })
      }
    />
  );
}
