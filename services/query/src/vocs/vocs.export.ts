import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import type { Kysely } from 'kysely';
import { communicationTypeNames, type VocExportQuery, type VocPriority, type VocStatus } from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';
import { csvField } from '../medical-institutions/medical-institutions.export.ts';
import { allVocs } from './vocs.queries.ts';

const vocStatusNames: Record<VocStatus, string> = {
  NOT_STARTED: '未着手',
  IN_PROGRESS: '対応中',
  COMPLETED: '対応済',
  NO_ACTION_REQUIRED: '対応不要',
};
const vocPriorityNames: Record<VocPriority, string> = { LOW: '低', MIDDLE: '中', HIGH: '高' };
/** Every VOC of the list's conditions as CSV, in the list's order, a batch at a time. */
export function exportVocs(db: Kysely<ReadModels>, tenantId: string, query: VocExportQuery): Readable {
  const encode = (text: string) =>
    query.encoding === 'shift_jis' ? iconv.encode(text, 'cp932') : Buffer.from(text, 'utf8');
  const line = (cells: string[]) => cells.map(csvField).join(',') + '\r\n';
  const header = [
    'ID',
    '報告日',
    '医療機関',
    'タイトル',
    'ステータス',
    '優先度',
    'グループ',
    '担当者',
    '内容',
    '対応内容',
    '活動記録',
    '更新日時',
  ];
  async function* generate(): AsyncGenerator<Buffer> {
    yield encode((query.encoding === 'shift_jis' ? '' : '\ufeff') + line(header));
    for await (const items of allVocs(db, tenantId, query)) {
      yield encode(
        items
          .map((v) =>
            line([
              v.id,
              v.reported_date,
              v.medical_institution.name,
              v.title,
              vocStatusNames[v.status],
              vocPriorityNames[v.priority],
              v.voc_group?.name ?? '',
              v.user?.name ?? '',
              v.detail_text,
              v.action_text,
              v.communications.map((c) => `${c.acted_date} ${communicationTypeNames[c.communication_type]}`).join('、'),
              v.updated_at,
            ]),
          )
          .join(''),
      );
    }
  }
  return Readable.from(generate());
}
