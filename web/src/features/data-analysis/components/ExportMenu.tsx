import { Button, Menu } from '@mantine/core';
import { useState } from 'react';
import { toast } from '../../../app/toast.ts';
import { type CsvEncoding, type ExportTable, saveCsv, saveFile, xlsxBytes } from '../../../ui/table-export.ts';

const xlsxType = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** CSV (UTF-8 with BOM, or Shift_JIS) and Excel files of a table exactly as the panel shows it. */
export function ExportMenu({ table, testId }: { table: ExportTable | undefined; testId: string }) {
  const [busy, setBusy] = useState(false);
  const csv = (encoding: CsvEncoding) => {
    if (!table) return;
    saveCsv(table, encoding);
  };
  const xlsx = async () => {
    if (!table) return;
    setBusy(true);
    try {
      saveFile(await xlsxBytes(table), `${table.name}.xlsx`, xlsxType);
    } catch {
      toast.error('Excelファイルを作成できませんでした。');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        {/* Every panel has one: read alone, six 「出力」 buttons do not say which table each one exports. */}
        <Button
          variant="default"
          size="xs"
          loading={busy}
          disabled={!table}
          aria-label={table ? `${table.name}を出力` : undefined}
          data-testid={`export-${testId}`}
        >
          出力
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Item onClick={() => csv('utf-8')}>CSV（UTF-8・BOM付き）</Menu.Item>
        <Menu.Item onClick={() => csv('shift_jis')}>CSV（Shift_JIS）</Menu.Item>
        <Menu.Item onClick={() => void xlsx()}>Excel（.xlsx）</Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
