import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import type { Database } from '@renkei/db';
import {
  communicationTypeNames,
  type Communication,
  type CommunicationExportBody,
  type CommunicationLabel,
} from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';
import { csvField } from '../medical-institutions/medical-institutions.export.ts';
import { listCommunicationLabels, searchCommunications } from './communications.queries.ts';

const batchSize = 500;

function labelText(c: Communication, labels: Map<string, CommunicationLabel>): string {
  return c.label_values
    .flatMap((v) => {
      const label = labels.get(v.label_id);
      if (!label) return [];
      const choice = (id: string) => label.selections.find((s) => s.id === id)?.label ?? '';
      const text =
        v.text_value ??
        (v.integer_value !== null ? String(v.integer_value) : null) ??
        v.date_value ??
        v.time_value ??
        (v.selection_id !== null ? choice(v.selection_id) : v.selection_ids.map(choice).join('、'));
      return [`${label.name}: ${text}`];
    })
    .join(' / ');
}

/**
 * The whole search result as CSV, page by page so memory does not grow with the row count. The id
 * column comes first: an edited export is what the communication update import (later) takes back.
 */
export function exportCommunications(db: Database, tenantId: string, body: CommunicationExportBody): Readable {
  const encode = (text: string) =>
    body.encoding === 'shift_jis' ? iconv.encode(text, 'cp932') : Buffer.from(text, 'utf8');
  const line = (cells: string[]) => cells.map(csvField).join(',') + '\r\n';
  const header = [
    'ID',
    '活動日',
    '種別',
    '医療機関',
    '担当者',
    '内容',
    'メモ',
    'その他メモ',
    '医師面談',
    'ラベル',
    'タスク',
    'いいね',
    'コメント',
  ];

  async function* generate(): AsyncGenerator<Buffer> {
    yield encode((body.encoding === 'shift_jis' ? '' : '\ufeff') + line(header));
    const labels = new Map(
      (await listCommunicationLabels(db.typed<ReadModels>(), tenantId, undefined)).map((l) => [l.id, l]),
    );
    for (let page = 1; ; page++) {
      const { data } = await searchCommunications(db, tenantId, { ...body, page, per_page: batchSize });
      if (data.length === 0) break;
      yield encode(
        data
          .map((c) =>
            line([
              c.id,
              c.acted_date,
              communicationTypeNames[c.communication_type],
              c.medical_institution?.name ?? '',
              c.user?.name ?? '',
              c.story,
              c.memo,
              c.other_memo,
              c.is_doctor_attended ? 'あり' : '',
              labelText(c, labels),
              c.tasks.map((t) => t.title).join('、'),
              String(c.likes.length),
              String(c.comments.length),
            ]),
          )
          .join(''),
      );
      if (data.length < batchSize) break;
    }
  }
  return Readable.from(generate());
}
