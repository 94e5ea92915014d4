import { Readable } from 'node:stream';
import iconv from 'iconv-lite';
import { sql } from 'kysely';
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

/** A deleted label or choice keeps its name with this mark; the update import knows it (and keeps the value). */
const deletedMark = '（削除済み）';

/**
 * The record's label values as 「ラベル: 値」 joined by 「 / 」, what the update import reads back: a
 * department by its name (the import matches it by name), a deleted label or choice named with
 * （削除済み） (docs/decisions.md: its values stay readable).
 */
function labelText(
  c: Communication,
  labels: ReadonlyMap<string, CommunicationLabel>,
  departments: ReadonlyMap<string, string>,
): string {
  return c.label_values
    .flatMap((v) => {
      const label = labels.get(v.label_id);
      if (!label) return [];
      const choice = (id: string) => {
        const live = label.selections.find((s) => s.id === id);
        if (live) return live.label;
        const gone = label.deleted_selections?.find((s) => s.id === id);
        return gone ? `${gone.label}${deletedMark}` : '';
      };
      const text =
        v.text_value ??
        (v.integer_value !== null ? String(v.integer_value) : null) ??
        v.date_value ??
        v.time_value ??
        (v.own_department_id !== null ? (departments.get(v.own_department_id) ?? '') : null) ??
        (v.selection_id !== null ? choice(v.selection_id) : v.selection_ids.map(choice).join('、'));
      return [`${label.name}${label.is_deleted ? deletedMark : ''}: ${text}`];
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
  // Every field the update import reads back (communicationImportColumns), so an edited export can
  // correct any of them; the code tells apart institutions of the same name (the import ignores it).
  const header = [
    'ID',
    '活動日',
    '種別',
    '医療機関',
    '医療機関コード',
    '担当者',
    'カテゴリ',
    '目的',
    'イベント名',
    '先方担当者',
    '同行者',
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
    const [labelList, departmentList] = await Promise.all([
      // Deleted labels too: their values are still written, marked.
      listCommunicationLabels(db.typed<ReadModels>(), tenantId, undefined, true),
      db
        .typed<ReadModels>()
        .selectFrom('rm.own_departments')
        .select(['id', 'name'])
        .where('tenant_id', '=', tenantId)
        .execute(),
    ]);
    const labels = new Map(labelList.map((l) => [l.id, l]));
    const departments = new Map(departmentList.map((d) => [d.id, d.name]));
    for (let page = 1; ; page++) {
      const { data } = await searchCommunications(db, tenantId, { ...body, page, per_page: batchSize });
      if (data.length === 0) break;
      const institutionIds = [
        ...new Set(data.flatMap((c) => (c.medical_institution ? [c.medical_institution.id] : []))),
      ];
      const codes = new Map(
        (
          await sql<{ id: string; code: string }>`
            SELECT id, code FROM ref.medical_institutions WHERE id = ANY(${sql.val(institutionIds)}::uuid[])`.execute(
            db.typed<ReadModels>(),
          )
        ).rows.map((r) => [r.id, r.code]),
      );
      yield encode(
        data
          .map((c) =>
            line([
              c.id,
              c.acted_date,
              communicationTypeNames[c.communication_type],
              c.medical_institution?.name ?? '',
              (c.medical_institution && codes.get(c.medical_institution.id)) ?? '',
              c.user?.name ?? '',
              c.category ?? '',
              c.purpose ?? '',
              c.event_name ?? '',
              c.person_in_charge_hospital ?? '',
              c.attendee ?? '',
              c.story,
              c.memo,
              c.other_memo,
              c.is_doctor_attended ? 'あり' : '',
              labelText(c, labels, departments),
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
