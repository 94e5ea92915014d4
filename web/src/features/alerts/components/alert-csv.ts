import type { AlertMedicalInstitution, CsvEncoding } from '@renkei/contracts';
import type { ApiClient } from '../../../api/api-client.ts';
import { type ExportTable, saveCsv } from '../../../ui/table-export.ts';

const columns = [
  { key: 'name', label: '医療機関名' },
  { key: 'address', label: '住所' },
  { key: 'referral_count', label: '紹介数' },
  { key: 'comparison_referral_count', label: '前月紹介数' },
  { key: 'rate_of_referral_change', label: '増減率(%)' },
  { key: 'last_visit_date', label: '最終訪問日' },
];

/** The rows of the CSV: the rate in percent with one decimal, as the partner search's export writes it. */
function alertInstitutionsTable(name: string, rows: readonly AlertMedicalInstitution[]): ExportTable {
  return {
    name,
    columns,
    rows: rows.map((r) => ({
      name: r.name,
      address: r.address,
      referral_count: r.referral_count,
      comparison_referral_count: r.comparison_referral_count,
      rate_of_referral_change:
        r.rate_of_referral_change === null ? null : Math.round(r.rate_of_referral_change * 1000) / 10,
      last_visit_date: r.last_visit_date,
    })),
  };
}

/** Every institution of the alert (all pages, 100 at a time) saved as CSV. */
export async function downloadAlertCsv(
  api: ApiClient,
  alert: { id: string; name: string; alert_date: string },
  encoding: CsvEncoding,
): Promise<void> {
  const rows: AlertMedicalInstitution[] = [];
  for (let page = 1; ; page++) {
    const res = await api.listAlertMedicalInstitutions({ params: { id: alert.id }, query: { page, per_page: 100 } });
    rows.push(...res.data);
    if (page >= res.meta.total_pages) break;
  }
  const table = alertInstitutionsTable(alert.name, rows);
  saveCsv(table, encoding, `alert-${alert.alert_date.slice(0, 7)}.csv`);
}
