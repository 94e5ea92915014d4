import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import type { Kysely } from 'kysely';
import type { ActionListItemStatus, ActionListItemsExportQuery, RunningStatus } from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';
import { csvField, japanDateTime } from '../medical-institutions/medical-institutions.export.ts';
import { allActionListItems } from './action-lists.queries.ts';

const itemStatusNames: Record<ActionListItemStatus, string> = { actioned: '対応済み', not_actioned: '未対応' };
const runningStatusNames: Record<RunningStatus, string> = {
  open: '運営中',
  closed: '廃止',
  suspended: '休止',
  unknown: '不明',
};

const ratePercent = (rate: number | null | undefined) =>
  rate === null || rate === undefined ? null : Math.round(rate * 1000) / 10;

/** A list's institutions of the filter as CSV, in the list's order, a batch at a time. */
export function exportActionListItems(
  db: Kysely<ReadModels>,
  tenantId: string,
  listId: string,
  query: ActionListItemsExportQuery,
): Readable {
  const encode = (text: string) =>
    query.encoding === 'shift_jis' ? iconv.encode(text, 'cp932') : Buffer.from(text, 'utf8');
  // Numbers are written as numbers: a negative change is data, not a formula to neutralise.
  const line = (cells: (string | number)[]) =>
    cells.map((v) => (typeof v === 'number' ? String(v) : csvField(v))).join(',') + '\r\n';
  const orEmpty = (v: number | null | undefined) => v ?? '';
  // The referral columns only when the periods are named (the screen always names them).
  const figures = query.referral_period !== undefined || query.comparison_referral_period !== undefined;
  const header = [
    '医療機関ID',
    '医療機関名',
    '住所',
    '電話番号',
    '運営状況',
    ...(figures ? ['紹介数', '比較期間の紹介数', '紹介数の増減率(%)'] : []),
    '最終訪問日',
    '対応状況',
    '更新者',
    '更新日時',
  ];
  async function* generate(): AsyncGenerator<Buffer> {
    yield encode((query.encoding === 'shift_jis' ? '' : '\ufeff') + line(header));
    for await (const items of allActionListItems(db, tenantId, listId, query.status, query)) {
      yield encode(
        items
          .map((i) =>
            line([
              i.medical_institution.id,
              i.medical_institution.name,
              i.medical_institution.address,
              i.medical_institution.tel ?? '',
              runningStatusNames[i.medical_institution.running_status],
              ...(figures
                ? [
                    orEmpty(i.medical_institution.referral_count),
                    orEmpty(i.medical_institution.comparison_referral_count),
                    // In percent with one decimal, as the partner search's export writes it.
                    orEmpty(ratePercent(i.medical_institution.rate_of_referral_change)),
                  ]
                : []),
              i.medical_institution.last_visit_date ?? '',
              itemStatusNames[i.status],
              i.updated_by?.name ?? '',
              japanDateTime(i.updated_at),
            ]),
          )
          .join(''),
      );
    }
  }
  return Readable.from(generate());
}
