import fs from 'node:fs';
import { createHash } from 'node:crypto';
import { parse } from 'csv-parse';
import iconv from 'iconv-lite';
import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import {
  checkLabelValues,
  stableJson,
  blankLabelValue,
  labelValueImportAggregate,
  medicalInstitutionCrmAggregate,
  medicalInstitutionCrmKey,
  parseCrmEvent,
  parseLabelValueImportEvent,
  type LabelDefinition,
  type LabelValueData,
  type LabelValueImportChunkProcessed,
  type LabelValueImportRequested,
} from '@renkei/domain';
import {
  readStreamOrEmpty,
  WrongExpectedRevisionError,
  streamId,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '@renkei/event-store';
import { detectEncoding } from '@renkei/institution-master';
import { defineReactor, waitForPosition } from '@renkei/projections';
import { medicalInstitutionCrmProjection } from '@renkei/read-models';
import {
  createImportQueue,
  ImportInterruptedError,
  ImportNotReadyError,
  type ImportQueueOptions,
  type ImportRunControl,
} from './import-queue.ts';

/** Rows per chunk: progress is recorded after each. */
const importChunkSize = 500;
const codeHeader = '医療機関コード';
const ignoredHeaders = new Set(['医療機関名', '名称']);

export const nfkc = (s: string) => s.normalize('NFKC').trim();

/**
 * Characters Postgres cannot store in text or jsonb (NUL), other C0/C1 controls except tab and line
 * breaks (a textarea value may hold those), and UTF-16 halves without their partner.
 */
const unstorable =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const unstorableAll = new RegExp(unstorable.source, 'g');

/** Whether a cell holds a character that no event may carry. */
export function hasUnstorableCharacter(cell: string): boolean {
  return unstorable.test(cell);
}

/** A message for the user that quotes file content: the characters no event may carry are dropped. */
export function storable(text: string): string {
  return text.replace(unstorableAll, '');
}

const int4 = { min: -2147483648, max: 2147483647 };

/** Ids of events the reactor appends derive from the import and the row, so a repeated run appends nothing new. */
function eventId(...parts: (string | number)[]): string {
  const h = createHash('sha1')
    .update(`label_value_import\u0000${parts.join('\u0000')}`)
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

interface TenantLabels {
  byName: Map<string, LabelDefinition>;
  all: Map<string, LabelDefinition>;
  ownDepartments: Map<string, string>;
}

/** How long one run waits for the read model before it gives up and the reactor retries the upload. */
const labelsCatchUpTimeoutMs = 30_000;

/**
 * The tenant's labels and own departments as of the upload: the read model is waited on until it has
 * passed the upload's own position, so a label created a moment before the upload (whose event is
 * earlier in the global order) is there. If it does not get there in time the run fails before writing
 * anything and the reactor retries the upload after a back-off; the import stays waiting meanwhile.
 */
async function loadTenantLabels(db: Database, requested: RecordedEvent): Promise<TenantLabels> {
  const reached = await waitForPosition(
    db,
    [medicalInstitutionCrmProjection.name],
    requested.position,
    labelsCatchUpTimeoutMs,
  );
  if (!reached)
    throw new ImportNotReadyError(
      `label value import ${requestOf(requested).import_id}: the ${medicalInstitutionCrmProjection.name} read model has not reached the upload yet`,
    );
  const tenantId = requested.metadata.tenant_id;
  const labels = await sql<{
    id: string;
    name: string;
    component_type: LabelDefinition['componentType'];
    selections: LabelDefinition['selections'];
    areas: LabelDefinition['areas'];
  }>`
    SELECT id, name, component_type, selections, areas FROM rm.medical_institution_labels WHERE tenant_id = ${tenantId}`.execute(
    db.kysely,
  );
  const departments = await sql<{ id: string; name: string }>`
    SELECT id, name FROM rm.own_departments WHERE tenant_id = ${tenantId}`.execute(db.kysely);
  const all = new Map<string, LabelDefinition>();
  const byName = new Map<string, LabelDefinition>();
  for (const r of labels.rows) {
    const def: LabelDefinition = {
      id: r.id,
      name: r.name,
      componentType: r.component_type,
      selections: r.selections,
      areas: r.areas,
    };
    all.set(r.id, def);
    byName.set(nfkc(r.name), def);
  }
  return { all, byName, ownDepartments: new Map(departments.rows.map((d) => [nfkc(d.name), d.id])) };
}

/** One CSV cell → the label value it means, or a message for the user. */
export function parseCell(
  cell: string,
  label: LabelDefinition,
  ownDepartments: ReadonlyMap<string, string>,
): LabelValueData | string {
  const v = blankLabelValue(label.id);
  const s = nfkc(cell);
  const choice = (text: string) => label.selections.find((x) => nfkc(x.label) === text)?.id;
  switch (label.componentType) {
    case 'text':
    case 'textarea':
      v.text_value = cell.trim();
      return v;
    case 'integer':
      if (!/^[-+]?\d{1,10}$/.test(s.replace(/,/g, ''))) return `「${label.name}」は整数で入力してください`;
      v.integer_value = Number(s.replace(/,/g, ''));
      // The read model keeps it as a Postgres int.
      if (v.integer_value < int4.min || v.integer_value > int4.max)
        return `「${label.name}」は${int4.min}から${int4.max}までの整数で入力してください`;
      return v;
    case 'date': {
      const m = /^(\d{4})[-/]?(\d{1,2})[-/]?(\d{1,2})$/.exec(s);
      const iso = m ? `${m[1]}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}` : '';
      const d = new Date(`${iso}T00:00:00Z`);
      if (!m || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== iso)
        return `「${label.name}」はYYYY-MM-DD形式の日付で入力してください`;
      // Year 0 is a valid ISO date but no Postgres date; before 1000 is a typing slip in practice.
      if (Number(m[1]) < 1000) return `「${label.name}」は西暦1000年以降の日付で入力してください`;
      v.date_value = iso;
      return v;
    }
    case 'time': {
      const m = /^([01]?\d|2[0-3]):([0-5]\d)$/.exec(s);
      if (!m) return `「${label.name}」はHH:MM形式の時刻で入力してください`;
      v.time_value = `${m[1]!.padStart(2, '0')}:${m[2]}`;
      return v;
    }
    case 'select':
    case 'radio': {
      const id = choice(s);
      if (!id) return `「${label.name}」に選択肢「${s}」はありません`;
      v.selection_id = id;
      return v;
    }
    case 'checkbox': {
      const parts = s
        .split(/[、|;，]/)
        .map(nfkc)
        .filter(Boolean);
      const unknown = parts.find((p) => !choice(p));
      if (unknown) return `「${label.name}」に選択肢「${unknown}」はありません`;
      v.selection_ids = parts.map((p) => choice(p)!);
      return v;
    }
    case 'own_department': {
      const id = ownDepartments.get(s);
      if (!id) return `「${label.name}」に自院診療科「${s}」はありません`;
      v.own_department_id = id;
      return v;
    }
    case 'area': {
      const id = label.areas.find((a) => nfkc(a.name) === s)?.id;
      if (!id) return `「${label.name}」にエリア「${s}」はありません`;
      v.area_id = id;
      return v;
    }
    default: {
      const never: never = label.componentType;
      return never;
    }
  }
}

export async function countDataLines(filePath: string): Promise<number> {
  let lines = 0;
  let lastByte = 0x0a;
  for await (const chunk of fs.createReadStream(filePath) as AsyncIterable<Buffer>) {
    for (const b of chunk) if (b === 0x0a) lines++;
    lastByte = chunk[chunk.length - 1] ?? lastByte;
  }
  if (lastByte !== 0x0a) lines++;
  return Math.max(lines - 1, 0);
}

const alone: ImportRunControl = { turn: (work) => work() };

/**
 * Runs one import: the file is parsed streamed, in chunks of rows; a row with any problem is reported
 * by its number and applied not at all; a valid row becomes one label-values change on its
 * institution. A problem with the file itself (no code column, unknown label, broken CSV) stops the
 * run there. Every event has an id derived from the import and the row or chunk, and chunks already
 * recorded are skipped, so a run cut short anywhere resumes without a duplicate.
 */
export async function runLabelValueImport(
  db: Database,
  store: EventStore,
  requested: RecordedEvent,
  control: ImportRunControl = alone,
): Promise<void> {
  const data = requestOf(requested);
  const tenantId = requested.metadata.tenant_id;
  const importStream = streamId(labelValueImportAggregate, data.import_id);
  const history = (await readStreamOrEmpty(store, importStream, tenantId)).map(parseLabelValueImportEvent);
  if (history.some((e) => e.type === 'LabelValueImportFinished')) return;
  const recordedChunks = new Map<number, LabelValueImportChunkProcessed>();
  for (const e of history) if (e.type === 'LabelValueImportChunkProcessed') recordedChunks.set(e.data.chunk, e.data);
  const metadata: EventMetadata = {
    tenant_id: tenantId,
    account_id: requested.metadata.account_id,
    correlation_id: data.import_id,
    causation_id: requested.id,
    schema_version: 1,
  };
  const record = async (id: string, type: string, payload: unknown) => {
    await store.append(importStream, [{ id, type, data: payload, metadata }], { expectedRevision: 'any' });
  };

  // Before anything is recorded: a run that cannot see the labels yet leaves the import waiting.
  const labels = await loadTenantLabels(db, requested);
  const total = await countDataLines(data.stored_path);
  await record(eventId(data.import_id, 'started'), 'LabelValueImportStarted', {
    import_id: data.import_id,
    total_row_count: total,
  });
  const encoding = data.encoding ?? ((await detectEncoding(data.stored_path)) === 'utf8' ? 'utf-8' : 'shift_jis');

  let imported = 0;
  let failed = 0;
  let processed = 0;
  let chunk = 0;
  let chunkImported = 0;
  let chunkFailed = 0;
  let chunkErrors: { row_number: number | null; message: string }[] = [];
  const flush = async () => {
    if (chunkImported + chunkFailed === 0) return;
    await record(eventId(data.import_id, 'chunk', chunk), 'LabelValueImportChunkProcessed', {
      import_id: data.import_id,
      chunk,
      imported_row_count: chunkImported,
      failed_row_count: chunkFailed,
      errors: chunkErrors,
    });
    chunk++;
    chunkImported = 0;
    chunkFailed = 0;
    chunkErrors = [];
  };
  const finish = async (status: 'completed' | 'failed', abortion: number | null, error: string | null) => {
    await flush();
    await record(eventId(data.import_id, 'finished'), 'LabelValueImportFinished', {
      import_id: data.import_id,
      status,
      imported_row_count: imported,
      failed_row_count: failed,
      unprocessed_row_count: status === 'completed' ? 0 : Math.max(total - processed, 0),
      abortion_row_number: abortion,
      error: error ? { row_number: abortion, message: storable(error) } : null,
    });
  };

  const parser = fs
    .createReadStream(data.stored_path)
    .pipe(iconv.decodeStream(encoding === 'utf-8' ? 'utf8' : 'cp932'))
    .pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, delimiter: [',', '\t'] }));
  let columns: (LabelDefinition | 'code' | null)[] | null = null;
  let rowNumber = -1;
  let pending: { rowNumber: number; cells: string[] }[] = [];

  const validate = (row: { rowNumber: number; cells: string[] }, idByCode: Map<string, string>) => {
    const cols = columns!;
    const codeCell = row.cells[cols.indexOf('code')] ?? '';
    const problems: string[] = [];
    const unstorableIn = cols.flatMap((col, i) =>
      col !== null && hasUnstorableCharacter(row.cells[i] ?? '') ? [col === 'code' ? codeHeader : col.name] : [],
    );
    if (unstorableIn.length > 0) {
      problems.push(`「${unstorableIn.join('」「')}」に使用できない文字（制御文字など）が含まれています`);
      return { problems, institutionId: undefined, values: [] };
    }
    const code = nfkc(codeCell);
    const institutionId = idByCode.get(code);
    if (!institutionId)
      problems.push(code ? `医療機関コード「${code}」は登録されていません` : '医療機関コードを入力してください');
    const values: LabelValueData[] = [];
    cols.forEach((col, i) => {
      if (col === null || col === 'code') return;
      const cell = row.cells[i] ?? '';
      if (cell.trim() === '') return;
      const parsed = parseCell(cell, col, labels.ownDepartments);
      if (typeof parsed === 'string') problems.push(parsed);
      else values.push(parsed);
    });
    if (problems.length === 0) {
      const checked = checkLabelValues(values, labels.all, new Set(labels.ownDepartments.values()));
      problems.push(...checked.problems.map((p) => p.message));
    }
    return { problems, institutionId, values };
  };

  const applyChunk = async () => {
    if (control.signal?.aborted) throw new ImportInterruptedError();
    const rows = pending;
    pending = [];
    const done = recordedChunks.get(chunk);
    if (done) {
      // Recorded by an earlier run that was cut short: its rows are in already.
      processed += rows.length;
      imported += done.imported_row_count;
      failed += done.failed_row_count;
      chunk++;
      return;
    }
    await control.turn(async () => {
      const codes = [
        ...new Set(
          rows.map((r) => nfkc(r.cells[columns!.indexOf('code')] ?? '')).filter((c) => !hasUnstorableCharacter(c)),
        ),
      ];
      const found = await sql<{ code: string; id: string }>`
        SELECT code, id FROM ref.medical_institutions WHERE code = ANY(${sql.val(codes)}::text[])`.execute(db.kysely);
      const idByCode = new Map(found.rows.map((r) => [r.code, r.id]));
      // Valid rows are grouped by institution: each group is appended in file order, groups side by side.
      const groups = new Map<string, { rowNumber: number; values: LabelValueData[] }[]>();
      for (const row of rows) {
        processed++;
        const { problems, institutionId, values } = validate(row, idByCode);
        if (problems.length > 0 || !institutionId) {
          failed++;
          chunkFailed++;
          chunkErrors.push({
            row_number: row.rowNumber,
            message: storable(`${row.rowNumber}行目: ${problems.join('、')}`),
          });
          continue;
        }
        const group = groups.get(institutionId) ?? [];
        group.push({ rowNumber: row.rowNumber, values });
        groups.set(institutionId, group);
        imported++;
        chunkImported++;
      }
      await applyGroups(store, metadata, tenantId, data.import_id, groups);
      await flush();
    });
    // Let requests and other imports in between chunks.
    await new Promise((resolve) => setImmediate(resolve));
  };

  let readingFailed: unknown = null;
  try {
    for await (const cells of parser as AsyncIterable<string[]>) {
      rowNumber++;
      if (columns === null) {
        const mapped = cells.map((h) => {
          const name = nfkc(h);
          if (name === codeHeader) return 'code' as const;
          if (ignoredHeaders.has(name) || name === '') return null;
          return labels.byName.get(name) ?? name;
        });
        const unknown = mapped.filter((c): c is string => typeof c === 'string' && c !== 'code');
        if (!mapped.includes('code'))
          return await finish('failed', 0, '1行目（見出し）に「医療機関コード」の列がありません');
        if (unknown.length > 0)
          return await finish('failed', 0, `見出しのラベル「${unknown.join('」「')}」は登録されていません`);
        columns = mapped as (LabelDefinition | 'code' | null)[];
        continue;
      }
      pending.push({ rowNumber, cells });
      if (pending.length >= importChunkSize) {
        // Parsing pauses while the chunk is applied; a failure there is the store's, not the file's.
        try {
          await applyChunk();
        } catch (error) {
          parser.destroy();
          throw Object.assign(new Error('apply failed'), { applyError: error });
        }
      }
    }
  } catch (error) {
    const applyError = (error as { applyError?: unknown }).applyError;
    if (applyError !== undefined) throw applyError;
    readingFailed = error;
  }
  if (readingFailed !== null) {
    // A broken file (unbalanced quotes, undecodable bytes): rows before stay imported, the rest are unprocessed.
    if (pending.length > 0) await applyChunk();
    return await finish(
      'failed',
      rowNumber + 1,
      `${rowNumber + 1}行目でファイルを読み取れませんでした: ${(readingFailed as Error).message}`,
    );
  }
  if (columns === null) return await finish('failed', 0, 'ファイルにデータがありません');
  if (pending.length > 0) await applyChunk();
  await finish('completed', null, null);
}

/** What a group's rows change on top of the stream as it is: one event per row that changes anything. */
function planRows(
  existing: RecordedEvent[],
  rows: { rowNumber: number; values: LabelValueData[] }[],
  institutionId: string,
  importId: string,
  metadata: EventMetadata,
): NewEvent[] {
  const stored = new Set(existing.map((e) => e.id));
  const current = new Map<string, LabelValueData>();
  for (const e of existing.map(parseCrmEvent)) {
    if (e.type !== 'MedicalInstitutionLabelValuesChanged') continue;
    for (const r of e.data.removed_label_ids) current.delete(r);
    for (const v of e.data.values) current.set(v.label_id, v);
  }
  const planned: NewEvent[] = [];
  for (const row of rows) {
    const id = eventId(importId, 'row', row.rowNumber);
    if (stored.has(id)) continue;
    const changed = row.values.filter((v) => stableJson(current.get(v.label_id)) !== stableJson(v));
    if (changed.length === 0) continue;
    const previous = changed.map((v) => current.get(v.label_id)).filter((v): v is LabelValueData => v !== undefined);
    for (const v of changed) current.set(v.label_id, v);
    planned.push({
      id,
      type: 'MedicalInstitutionLabelValuesChanged',
      data: {
        medical_institution_id: institutionId,
        values: changed,
        removed_label_ids: [],
        previous,
        import_id: importId,
      },
      metadata,
    });
  }
  return planned;
}

/**
 * Applies a chunk's rows: every institution's stream is read in one round trip, and each
 * institution's rows go in one append, all appends at once (the store's group commit puts many in
 * one statement). An institution changed meanwhile by someone else is redone row by row.
 */
async function applyGroups(
  store: EventStore,
  metadata: EventMetadata,
  tenantId: string,
  importId: string,
  groups: Map<string, { rowNumber: number; values: LabelValueData[] }[]>,
): Promise<void> {
  if (groups.size === 0) return;
  const entries = [...groups.entries()].map(([institutionId, rows]) => ({
    institutionId,
    rows,
    stream: streamId(medicalInstitutionCrmAggregate, medicalInstitutionCrmKey(tenantId, institutionId)),
  }));
  const existing = store.readStreams
    ? await store.readStreams(
        entries.map((e) => e.stream),
        { tenantId },
      )
    : new Map(
        await Promise.all(
          entries.map(async (e) => [e.stream, await readStreamOrEmpty(store, e.stream, tenantId)] as const),
        ),
      );
  await Promise.all(
    entries.map(async ({ institutionId, rows, stream }) => {
      const events = existing.get(stream) ?? [];
      const planned = planRows(events, rows, institutionId, importId, metadata);
      if (planned.length === 0) return;
      try {
        await store.append(stream, planned, {
          expectedRevision: events.length === 0 ? 'no_stream' : events[events.length - 1]!.revision,
        });
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
        for (const r of rows)
          await applyRow(
            store,
            metadata,
            tenantId,
            institutionId,
            r.values,
            eventId(importId, 'row', r.rowNumber),
            importId,
          );
      }
    }),
  );
}

async function applyRow(
  store: EventStore,
  metadata: EventMetadata,
  tenantId: string,
  institutionId: string,
  values: LabelValueData[],
  id: string,
  importId: string,
): Promise<void> {
  const stream = streamId(medicalInstitutionCrmAggregate, medicalInstitutionCrmKey(tenantId, institutionId));
  for (let attempt = 0; ; attempt++) {
    const events = await readStreamOrEmpty(store, stream, tenantId);
    const [event] = planRows(events, [{ rowNumber: -1, values }], institutionId, importId, metadata).map((e) => ({
      ...e,
      id,
    }));
    if (!event || events.some((e) => e.id === id)) return;
    try {
      await store.append(stream, [event], {
        expectedRevision: events.length === 0 ? 'no_stream' : events[events.length - 1]!.revision,
      });
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= 3) throw error;
    }
  }
}

/** The upload an import run starts from, read through its schema like every other event. */
function requestOf(requested: RecordedEvent): LabelValueImportRequested {
  const event = parseLabelValueImportEvent(requested);
  if (event.type !== 'LabelValueImportRequested') throw new Error(`${requested.type} does not start an import`);
  return event.data;
}

/** Marks an import that failed for good as failed, with the rows recorded so far counted. */
async function failImport(store: EventStore, requested: RecordedEvent): Promise<void> {
  const data = requestOf(requested);
  const tenantId = requested.metadata.tenant_id;
  const importStream = streamId(labelValueImportAggregate, data.import_id);
  const history = (await readStreamOrEmpty(store, importStream, tenantId)).map(parseLabelValueImportEvent);
  if (history.some((e) => e.type === 'LabelValueImportFinished')) return;
  let started: { total_row_count: number } | undefined;
  const chunks: LabelValueImportChunkProcessed[] = [];
  for (const e of history) {
    if (e.type === 'LabelValueImportStarted') started = e.data;
    if (e.type === 'LabelValueImportChunkProcessed') chunks.push(e.data);
  }
  const imported = chunks.reduce((n, c) => n + c.imported_row_count, 0);
  const failed = chunks.reduce((n, c) => n + c.failed_row_count, 0);
  const message =
    '取り込み中に予期しないエラーが発生したため中断しました。ファイルの内容を確認して、もう一度取り込んでください。';
  await store.append(
    importStream,
    [
      {
        id: eventId(data.import_id, 'finished'),
        type: 'LabelValueImportFinished',
        data: {
          import_id: data.import_id,
          status: 'failed',
          imported_row_count: imported,
          failed_row_count: failed,
          unprocessed_row_count: Math.max((started?.total_row_count ?? 0) - imported - failed, 0),
          abortion_row_number: null,
          error: { row_number: null, message },
        },
        metadata: {
          tenant_id: tenantId,
          account_id: requested.metadata.account_id,
          correlation_id: data.import_id,
          causation_id: requested.id,
          schema_version: 1,
        },
      },
    ],
    { expectedRevision: 'any' },
  );
}

/**
 * Records each upload as a job of the import queue (per tenant, round-robin by chunk, parked after
 * repeated failures; see import-queue.ts); the queue runs beside the reactor loop and stops with it.
 */
export function createLabelValueImportReactor(
  options: Pick<ImportQueueOptions, 'maxAttempts' | 'retryBaseMs' | 'chunkSlots' | 'maxActive' | 'pollIntervalMs'> = {},
) {
  const queue = createImportQueue({
    ...options,
    name: 'medical_institution_label_value_import',
    run: (event, control, ctx) => runLabelValueImport(ctx.db, ctx.store, event, control),
    onParked: (event, _error, ctx) => failImport(ctx.store, event),
  });
  return defineReactor({
    name: 'medical_institution_label_value_import',
    eventTypes: ['LabelValueImportRequested'],
    handle: (events, ctx) => queue.enqueue(events, ctx),
    background: (ctx) => queue.background(ctx),
  });
}

export const labelValueImportReactor = createLabelValueImportReactor();
