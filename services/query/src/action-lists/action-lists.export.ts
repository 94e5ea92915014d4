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

/** A list's institutions of the filter as CSV, in the list's order, a batch at a time. */
export function exportActionListItems(
  db: Kysely<ReadModels>,
  tenantId: string,
  listId: string,
  query: ActionListItemsExportQuery,
): Readable {
  const encode = (text: string) =>
    query.encoding === 'shift_jis' ? iconv.encode(text, 'cp932') : Buffer.from(text, 'utf8');
  const line = (cells: string[]) => cells.map(csvField).join(',') + '\r\n';
  const header = ['医療機関ID', '医療機関名', '住所', '電話番号', '運営状況', '対応状況', '更新者', '更新日時'];
  async function* generate(): AsyncGenerator<Buffer> {
    yield encode((query.encoding === 'shift_jis' ? '' : '\ufeff') + line(header));
    for await (const items of allActionListItems(db, tenantId, listId, query.status)) {
      yield encode(
        items
          .map((i) =>
            line([
              i.medical_institution.id,
              i.medical_institution.name,
              i.medical_institution.address,
              i.medical_institution.tel ?? '',
              runningStatusNames[i.medical_institution.running_status],
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
