import { Button, Menu } from '@mantine/core';
import { endpoints, type CsvEncoding } from '@renkei/contracts';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { downloadFile } from '../../imports/file-transfer.ts';
import {
  exportColumnsOf,
  referralPeriodsOf,
  toConditions,
  type InstitutionColumnKey,
  type InstitutionSearchState,
} from '../search-state.ts';
import { reloadedConflictMessage } from '../../../errors/mutation-errors.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';

/** Exports the whole result (every page) of the current conditions, in the order on screen. */
export function ExportMenu({ state, columns }: { state: InstitutionSearchState; columns: InstitutionColumnKey[] }) {
  const services = useServices();
  const [busy, setBusy] = useState(false);
  const onError = useMutationErrorHandler({ conflictMessage: reloadedConflictMessage });
  const run = async (encoding: CsvEncoding) => {
    setBusy(true);
    try {
      await downloadFile(services, endpoints.exportMedicalInstitutions, {
        body: {
          ...toConditions(state),
          ...referralPeriodsOf(state.referral_span),
          sort_by: state.sort_by,
          sort: state.sort,
          encoding,
          columns: exportColumnsOf(columns),
        },
        fallbackName: 'medical_institutions.csv',
      });
    } catch (error) {
      onError(error);
      if (error instanceof Error && 'status' in error && error.status === 422) toast.error(error.message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="default" size="xs" loading={busy} data-testid="export-csv">
          CSV出力
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={() => void run('utf-8')} data-testid="export-utf8">
          UTF-8（BOM付き）
        </Menu.Item>
        <Menu.Item onClick={() => void run('shift_jis')} data-testid="export-sjis">
          Shift_JIS（Excel向け）
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
