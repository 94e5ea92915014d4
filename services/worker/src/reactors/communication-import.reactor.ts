import iconv from 'iconv-lite';
import { sql } from 'kysely';
import { CommunicationUpdateInput, communicationTypeNames } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import {
  checkLabelValues,
  communicationAggregate,
  communicationImportAggregate,
  communicationImportColumns as col,
  communicationImportIgnoredColumns,
  communicationImportRowsAggregate,
  ImportedCommunication,
  compactCommunication,
  doctorAttendedNo,
  doctorAttendedYes,
  parseCommunicationEvent,
  parseCommunicationImportEvent,
  stableJson,
  uuidV5,
  type CommunicationFields,
  type CommunicationImportAdopted,
  type CommunicationImportRequested,
  type CommunicationTypeData,
  type LabelDefinition,
  type LabelValueData,
} from '@renkei/domain';
import {
  readStreamOrEmpty,
  streamId,
  WrongExpectedRevisionError,
  type EventMetadata,
  type EventStore,
  type RecordedEvent,
  type StreamAppend,
} from '@renkei/event-store';
import { withSpreadsheetZeroRestored } from '@renkei/institution-master';
import { waitForPosition } from '@renkei/projections';
import {
  communicationImportsProjection,
  communicationsProjection,
  medicalInstitutionCrmProjection,
} from '@renkei/read-models';
import { ImportNotReadyError, type ImportRunControl } from './import-queue.ts';
import {
  createImportReactor,
  hasUnstorableCharacter,
  importCsvRows,
  ImportRun,
  importJournal,
  nfkc,
  rowError,
  storable,
  type CsvRow,
} from './import-runner.ts';
import { parseCell } from './label-value-import.reactor.ts';
/** How long one run waits for the read models before the queue tries the upload again. */
const catchUpTimeoutMs = 30_000;
/** What a 医師面談 cell may say (lower case, NFKC); anything else is a row error, not "not met". */
const doctorWords = new Set<string>([...doctorAttendedYes, ...doctorAttendedNo]);
/** A text as a Shift_JIS file holds it: what cp932 cannot encode comes back as "?". */
const throughShiftJis = (text: string) => iconv.decode(iconv.encode(text, 'cp932'), 'cp932');

/** Never change: record and event ids derived from it are stored. */
const namespace = '3d0c6f1e9b2a4c7d8e5f60718293a4b5';

/** Ids derive from the import and the row, so a repeated run (a retry, a kill -9) appends nothing new. */
const derivedId = (...parts: (string | number)[]) => uuidV5(namespace, parts.join('\u0000'));

/**
 * Rows per chunk of a create import: the chunk's records are one event (one append whatever their
 * number), so bigger chunks share its fixed cost; an import begun with a stream per record keeps the
 * 500-row chunks its recorded chunk numbers count. Update imports write each record's stream: 500.
 */
const communicationChunkRows = 2_000;
const legacyChunkRows = 500;

/** The record a create row makes: the same id on every run of the import. */
export const importedCommunicationId = (importId: string, rowNumber: number) =>
  derivedId(importId, 'communication', rowNumber);

interface ImportLabel {
  def: LabelDefinition;
  required: boolean;
}

interface ImportFacts {
  /** Labels of each type by their normalised name. */
  labels: Map<CommunicationTypeData, Map<string, ImportLabel>>;
  labelNames: Set<string>;
  ownDepartments: Map<string, string>;
  ownDepartmentIds: Set<string>;
  accountsByEmail: Map<string, string>;
  accountsByName: Map<string, string[]>;
  accountIds: Set<string>;
}

const typeByName = new Map<string, CommunicationTypeData>(
  Object.entries(communicationTypeNames).flatMap(([type, name]) => [
    [nfkc(name), type as CommunicationTypeData],
    [type, type as CommunicationTypeData],
  ]),
);

/**
 * The tenant's labels, own departments and staff as of the upload: the read models are waited on
 * until they have passed the upload's position (as the label-value import does), else the queue
 * tries again later and the import stays waiting.
 */
async function loadFacts(db: Database, requested: RecordedEvent, importId: string): Promise<ImportFacts> {
  const names = [
    communicationsProjection.name,
    medicalInstitutionCrmProjection.name,
    communicationImportsProjection.name,
  ];
  if (!(await waitForPosition(db, names, requested.position, catchUpTimeoutMs)))
    throw new ImportNotReadyError(`communication import ${importId}: the read models have not reached the upload yet`);
  const tenantId = requested.metadata.tenant_id;
  const [labels, departments, accounts] = await Promise.all([
    sql<{
      id: string;
      name: string;
      communication_type: CommunicationTypeData;
      component_type: LabelDefinition['componentType'];
      selections: LabelDefinition['selections'];
      is_required: boolean;
    }>`SELECT id, name, communication_type, component_type, selections, is_required
         FROM rm.communication_labels WHERE tenant_id = ${tenantId} AND deleted_at IS NULL`.execute(db.kysely),
    sql<{ id: string; name: string }>`SELECT id, name FROM rm.own_departments WHERE tenant_id = ${tenantId}`.execute(
      db.kysely,
    ),
    sql<{ account_id: string; name: string; email: string | null }>`
      SELECT account_id, name, email FROM rm.communication_import_accounts WHERE tenant_id = ${tenantId}`.execute(
      db.kysely,
    ),
  ]);
  const facts: ImportFacts = {
    labels: new Map(),
    labelNames: new Set(),
    ownDepartments: new Map(departments.rows.map((d) => [nfkc(d.name), d.id])),
    ownDepartmentIds: new Set(departments.rows.map((d) => d.id)),
    accountsByEmail: new Map(),
    accountsByName: new Map(),
    accountIds: new Set(),
  };
  for (const l of labels.rows) {
    const byName = facts.labels.get(l.communication_type) ?? new Map<string, ImportLabel>();
    byName.set(nfkc(l.name), {
      def: { id: l.id, name: l.name, componentType: l.component_type, selections: l.selections, areas: [] },
      required: l.is_required,
    });
    facts.labels.set(l.communication_type, byName);
    facts.labelNames.add(nfkc(l.name));
  }
  for (const a of accounts.rows) {
    facts.accountIds.add(a.account_id);
    if (a.email) facts.accountsByEmail.set(a.email.trim().toLowerCase(), a.account_id);
    const key = nfkc(a.name).replace(/\s+/g, '');
    facts.accountsByName.set(key, [...(facts.accountsByName.get(key) ?? []), a.account_id]);
  }
  return facts;
}

type Column = CommunicationImportField | { label: string } | null;
type CommunicationImportField = keyof typeof col;

/** Header → what the column holds; a header that is neither a field nor a label stops the run. */
function mapHeader(cells: string[], facts: ImportFacts, mode: CommunicationImportRequested['mode']) {
  const fieldByHeader = new Map<string, CommunicationImportField>(
    Object.entries(col).map(([field, header]) => [header, field as CommunicationImportField]),
  );
  const ignored = new Set<string>(communicationImportIgnoredColumns);
  const unknown: string[] = [];
  const columns: Column[] = cells.map((h) => {
    const name = nfkc(h);
    if (name === '' || ignored.has(name)) return null;
    const field = fieldByHeader.get(name);
    if (field) return field;
    if (facts.labelNames.has(name)) return { label: name };
    unknown.push(storable(name));
    return null;
  });
  const has = (field: CommunicationImportField) => columns.includes(field);
  if (unknown.length > 0) return { error: `見出し「${unknown.join('」「')}」は項目名にも活動ラベル名にもありません` };
  if (mode === 'update' && !has('id'))
    return {
      error: '1行目（見出し）に「ID」の列がありません。活動記録の検索結果をCSV出力したファイルをお使いください',
    };
  if (mode === 'create') {
    const missing = [
      ...(has('institutionCode') || has('institutionName')
        ? []
        : [`${col.institutionCode}」または「${col.institutionName}`]),
      ...(has('actedDate') ? [] : [col.actedDate]),
      ...(has('type') ? [] : [col.type]),
    ];
    if (missing.length > 0) return { error: `1行目（見出し）に「${missing.join('」「')}」の列がありません` };
  }
  return { columns };
}

/** What the chunk's rows refer to, read in a few statements for the whole chunk. */
interface ChunkLookups {
  institutionsByCode: Map<string, string>;
  institutionsByName: Map<string, string[]>;
  /** Update mode: the named records' streams as they are. */
  streams: Map<string, RecordedEvent[]>;
  /** Update mode: records of create imports never written since, as their chunk holds them. */
  imported: Map<string, CommunicationImportAdopted>;
}

const isoDate = (cell: string): string => {
  const m = /^(\d{4})[-/.年]?(\d{1,2})[-/.月]?(\d{1,2})日?$/.exec(cell);
  return m ? `${m[1]}-${m[2]!.padStart(2, '0')}-${m[3]!.padStart(2, '0')}` : cell;
};

/** How the export marks a deleted label or choice (（削除済み）, after nfkc). */
const deletedMark = nfkc('（削除済み）');

/** The export's 「ラベル: 値 / ラベル: 値」 cell as (name, value) pairs. */
const exportedLabels = (cell: string): [string, string][] =>
  cell
    .split(' / ')
    .map((part) => part.split(/[:：]\s?/))
    .filter((p) => p.length >= 2 && nfkc(p[0]!) !== '')
    .map((p) => [nfkc(p[0]!), p.slice(1).join(':').trim()]);

const fieldsOfAdopted = ({ import_id: _import, imported_at: _at, ...fields }: CommunicationImportAdopted) => fields;

/**
 * Records of create imports that have no stream yet (`cmd.imported_communications` names their chunk,
 * whose `CommunicationsImported` holds them), as the beginning their stream gets on its first write.
 */
async function importedRecords(
  db: Database,
  store: EventStore,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, CommunicationImportAdopted>> {
  const found = new Map<string, CommunicationImportAdopted>();
  if (ids.length === 0) return found;
  const { rows } = await sql<{ communication_id: string; rows_id: string }>`
    SELECT communication_id, rows_id FROM cmd.imported_communications
     WHERE tenant_id = ${tenantId} AND communication_id = ANY(${sql.val(ids)}::uuid[])`.execute(db.kysely);
  const wanted = new Set(rows.map((r) => r.communication_id));
  const streams = [...new Set(rows.map((r) => streamId(communicationImportRowsAggregate, r.rows_id)))];
  const read = store.readStreams
    ? await store.readStreams(streams, { tenantId })
    : new Map(await Promise.all(streams.map(async (s) => [s, await readStreamOrEmpty(store, s, tenantId)] as const)));
  for (const events of read.values()) {
    const chunk = events[0];
    if (chunk?.type !== 'CommunicationsImported') continue;
    const data = chunk.data as { import_id: string; records: { communication_id: string }[] };
    for (const record of data.records)
      if (wanted.has(record.communication_id))
        found.set(record.communication_id, {
          ...ImportedCommunication.parse(record),
          import_id: data.import_id,
          imported_at: chunk.created_at.toISOString(),
        });
  }
  return found;
}

interface RowOutcome {
  problems: string[];
  fields?: CommunicationFields;
}

/**
 * One row → the record it makes or changes, by the rules the communication command applies to a
 * record entered by hand (the create/update body's schema, staff of the tenant, label values fitting
 * the type's labels, required labels answered); any problem leaves the row out whole.
 */
function decideRow(
  row: CsvRow,
  columns: Column[],
  facts: ImportFacts,
  lookups: ChunkLookups,
  context: { importId: string; callerId: string; mode: CommunicationImportRequested['mode'] },
): RowOutcome {
  const cell = (field: CommunicationImportField): string | undefined => {
    const i = columns.indexOf(field);
    return i < 0 ? undefined : (row.cells[i] ?? '');
  };
  const unstorableIn = columns.flatMap((c, i) =>
    c !== null && hasUnstorableCharacter(row.cells[i] ?? '') ? [typeof c === 'string' ? col[c] : c.label] : [],
  );
  if (unstorableIn.length > 0)
    return { problems: [`「${unstorableIn.join('」「')}」に使用できない文字（制御文字など）が含まれています`] };
  const problems: string[] = [];

  let current: CommunicationFields | null = null;
  let communicationId: string;
  let institutionId: string | undefined;
  if (context.mode === 'update') {
    communicationId = nfkc(cell('id') ?? '').toLowerCase();
    const events = lookups.streams.get(communicationId) ?? [];
    const adopted = events.length === 0 ? lookups.imported.get(communicationId) : undefined;
    if (adopted) current = fieldsOfAdopted(adopted);
    for (const e of events.map(parseCommunicationEvent)) {
      if (e.type === 'CommunicationImportAdopted') current = fieldsOfAdopted(e.data);
      else if (e.type === 'CommunicationCreated') {
        const { tasks: _tasks, ...fields } = e.data;
        current = fields;
      } else if (e.type === 'CommunicationUpdated') current = e.data;
      else if (e.type === 'CommunicationDeleted') current = null;
    }
    if (!communicationId) return { problems: ['IDを入力してください'] };
    if (!current) return { problems: [`ID「${storable(communicationId)}」の活動記録は見つかりません`] };
    institutionId = current.medical_institution_id;
  } else {
    communicationId = importedCommunicationId(context.importId, row.rowNumber);
    const code = withSpreadsheetZeroRestored(nfkc(cell('institutionCode') ?? ''));
    const name = (cell('institutionName') ?? '').trim();
    if (code) {
      institutionId = lookups.institutionsByCode.get(code);
      if (!institutionId) problems.push(`医療機関コード「${code}」は登録されていません`);
    } else if (name) {
      const found = lookups.institutionsByName.get(name) ?? [];
      if (found.length === 1) institutionId = found[0];
      else if (found.length === 0) problems.push(`医療機関名「${name}」に一致する医療機関がありません`);
      else problems.push(`医療機関名「${name}」に一致する医療機関が複数あります。医療機関コードで指定してください`);
    } else problems.push('医療機関コードまたは医療機関名を入力してください');
  }

  const typeCell = cell('type');
  let type: CommunicationTypeData | undefined = current?.communication_type;
  if (typeCell !== undefined) {
    type = typeByName.get(nfkc(typeCell));
    if (!type) problems.push(typeCell.trim() ? `種別「${nfkc(typeCell)}」はありません` : '種別を入力してください');
  }

  const userCell = (cell('user') ?? '').trim();
  let userId = current?.user_id ?? context.callerId;
  if (userCell) {
    const byEmail = facts.accountsByEmail.get(userCell.toLowerCase());
    const byName = facts.accountsByName.get(nfkc(userCell).replace(/\s+/g, '')) ?? [];
    if (byEmail) userId = byEmail;
    else if (byName.length === 1) userId = byName[0]!;
    else if (byName.length > 1) problems.push(`担当者「${userCell}」が複数います。メールアドレスで指定してください`);
    else problems.push(`担当者「${userCell}」は登録されていません`);
  }

  const doctorCell = cell('doctorAttended');
  const doctorWord = doctorCell === undefined ? '' : nfkc(doctorCell).trim().toLowerCase();
  if (doctorWord && !doctorWords.has(doctorWord))
    problems.push(`医師面談「${storable(doctorCell!.trim())}」は「あり」「なし」または空欄で入力してください`);
  const text = (field: CommunicationImportField, kept: string | null | undefined) => {
    const v = cell(field);
    if (v === undefined) return kept ?? null;
    if (v.trim() === '') return null;
    // A Shift_JIS export cannot hold every character (𠮷, emoji): it wrote "?" for them. A cell that reads
    // as the stored text written through Shift_JIS is that text, unedited, and must not replace it.
    if (kept && v !== kept && throughShiftJis(kept) === v) return kept;
    return v;
  };
  const input = {
    communication_type: type ?? 'other',
    acted_date: cell('actedDate') === undefined ? current?.acted_date : isoDate(nfkc(cell('actedDate')!)),
    category: text('category', current?.category),
    purpose: text('purpose', current?.purpose),
    story: text('story', current?.story) ?? '',
    event_name: text('eventName', current?.event_name),
    memo: text('memo', current?.memo) ?? '',
    other_memo: text('otherMemo', current?.other_memo) ?? '',
    person_in_charge_hospital: text('personInChargeHospital', current?.person_in_charge_hospital),
    attendee: text('attendee', current?.attendee),
    is_doctor_attended:
      doctorCell === undefined
        ? (current?.is_doctor_attended ?? false)
        : (doctorAttendedYes as readonly string[]).includes(doctorWord),
    user_id: userId,
    attachment_ids: current?.attachment_ids ?? [],
    label_values: [],
  };
  if (input.acted_date === undefined || input.acted_date === '') problems.push('活動日を入力してください');
  else {
    const parsed = CommunicationUpdateInput.safeParse(input);
    if (!parsed.success) problems.push(...parsed.error.issues.map((i) => i.message));
  }
  if (!facts.accountIds.has(userId) && problems.every((p) => !p.startsWith('担当者')))
    problems.push('担当者が見つかりません');
  if (!type || !institutionId) return { problems };

  // Label values: a cell with a value sets its label, an empty cell leaves it as it is; the export's
  // label column replaces them all.
  const labels = facts.labels.get(type) ?? new Map<string, ImportLabel>();
  const values = new Map<string, LabelValueData>();
  // What the record holds of deleted labels and choices stays (docs/decisions.md), as an edit on screen
  // keeps it: the export writes such a value with （削除済み）, and the row gives it back unchanged.
  const stored = new Map(
    context.mode === 'update' && type === current?.communication_type
      ? current.label_values.map((v) => [v.label_id, v] as const)
      : [],
  );
  const live = new Set([...facts.labels.values()].flatMap((byName) => [...byName.values()].map((l) => l.def.id)));
  const keep = context.mode === 'update' && !columns.includes('labels') && type === current?.communication_type;
  if (keep) for (const v of current!.label_values) values.set(v.label_id, v);
  else for (const v of stored.values()) if (!live.has(v.label_id)) values.set(v.label_id, v);
  const setLabel = (name: string, value: string) => {
    if (value.trim() === '' || name.endsWith(deletedMark)) return;
    const label = labels.get(name);
    if (!label) {
      problems.push(`種別「${communicationTypeNames[type!]}」に活動ラベル「${name}」はありません`);
      return;
    }
    const kept = stored.get(label.def.id);
    if (kept && nfkc(value).includes(deletedMark)) {
      values.set(label.def.id, kept);
      return;
    }
    // As for the text columns: a text written through a Shift_JIS export ("?" for 𠮷, emoji) is the stored one.
    if (kept?.text_value && kept.text_value !== value && throughShiftJis(kept.text_value) === value) {
      values.set(label.def.id, kept);
      return;
    }
    const parsed = parseCell(value, label.def, facts.ownDepartments);
    if (typeof parsed === 'string') problems.push(parsed);
    else values.set(label.def.id, parsed);
  };
  columns.forEach((c, i) => {
    if (c !== null && typeof c === 'object') setLabel(c.label, row.cells[i] ?? '');
  });
  const exported = cell('labels');
  if (exported !== undefined) for (const [name, value] of exportedLabels(exported)) setLabel(name, value);
  const inputs = [...values.values()];
  const checked = checkLabelValues(
    inputs,
    new Map([...labels.values()].map((l) => [l.def.id, l.def])),
    facts.ownDepartmentIds,
  );
  // A value given back exactly as stored is kept even where its label, choice or department is gone.
  const asStored = checked.problems.filter((p) => stored.get(inputs[p.index]!.label_id) === inputs[p.index]);
  const remaining = checked.problems.filter((p) => !asStored.includes(p));
  problems.push(...remaining.map((p) => p.message));
  const labelValues = [...checked.values, ...asStored.map((p) => inputs[p.index]!)];
  const answered = new Set(labelValues.map((v) => v.label_id));
  // A kept value is not a problem: it must not turn the required labels' check off (as in the decider).
  for (const l of labels.values())
    if (l.required && !answered.has(l.def.id) && remaining.length === 0)
      problems.push(`「${l.def.name}」を入力してください`);
  if (problems.length > 0) return { problems };
  return {
    problems,
    fields: {
      communication_id: communicationId,
      medical_institution_id: institutionId,
      communication_type: type,
      acted_date: input.acted_date!,
      category: input.category?.trim() || null,
      purpose: input.purpose?.trim() || null,
      story: input.story,
      event_name: input.event_name?.trim() || null,
      memo: input.memo,
      other_memo: input.other_memo,
      person_in_charge_hospital: input.person_in_charge_hospital?.trim() || null,
      attendee: input.attendee?.trim() || null,
      is_doctor_attended: input.is_doctor_attended,
      user_id: userId,
      attachment_ids: input.attachment_ids,
      label_values: labelValues,
    },
  };
}

/** How a communication import records itself (import-runner.ts). */
const communicationImportJournal = importJournal({
  aggregate: communicationImportAggregate,
  parse: parseCommunicationImportEvent,
  eventId: derivedId,
  requestedType: 'CommunicationImportRequested',
  startedType: 'CommunicationImportStarted',
  finishedType: 'CommunicationImportFinished',
  // An import undone is over too: a run still queued for it does nothing.
  endedTypes: ['CommunicationImportFinished', 'CommunicationImportDeleted'],
  chunkTypes: ['CommunicationImportChunkProcessed'],
});

/**
 * Runs one import through the import runner, as the label-value import runs: a row with any problem
 * is reported by its number and applied not at all; a file-level problem stops the run there. Create
 * rows become records with ids derived from the import and the row, update rows change the record
 * their ID names (a record changed meanwhile is decided again on its new state). Every event id is
 * derived, so a run cut short anywhere resumes without a duplicate.
 */
export async function runCommunicationImport(
  db: Database,
  store: EventStore,
  requested: RecordedEvent,
  control?: ImportRunControl,
): Promise<void> {
  const run = await ImportRun.open(store, requested, communicationImportJournal, { control });
  if (!run) return;
  const data = run.request;
  const facts = await loadFacts(db, requested, data.import_id);
  // An import begun when each created record had its own stream resumes in the chunks it began with.
  const begunWithStreams = (
    await readStreamOrEmpty(store, streamId(communicationImportAggregate, data.import_id), run.tenantId)
  ).some((e) => e.type === 'CommunicationImportChunkProcessed' && !(e.data as { rows_id?: string }).rows_id);
  const asOneEvent = data.mode === 'create' && !begunWithStreams;
  let columns: Column[] = [];
  await importCsvRows(run, {
    path: data.stored_path,
    encoding: data.encoding,
    chunkSize: asOneEvent ? communicationChunkRows : legacyChunkRows,
    // A create chunk reads the master, the labels and the staff only, never what earlier chunks wrote:
    // the next one is decided while the previous one is appended.
    prepareAhead: asOneEvent,
    header(cells) {
      const header = mapHeader(cells, facts, data.mode);
      if ('error' in header) return header.error!;
      columns = header.columns;
      return null;
    },
    async chunk(rows) {
      const result = await decideRows(db, store, run.metadata, data, columns, facts, rows, asOneEvent);
      return {
        type: 'CommunicationImportChunkProcessed',
        imported: result.communicationIds.length,
        failed: result.errors.length,
        errors: result.errors,
        // Create: the records made (an undo deletes them); update: those changed (an undo restores them).
        data: { communication_ids: result.communicationIds, ...(result.rowsId ? { rows_id: result.rowsId } : {}) },
        appends: result.appends,
      };
    },
  });
}

/**
 * A chunk's rows decided: create rows as one `CommunicationsImported` on the chunk's rows stream (or,
 * for an import begun before, as appends of new records), which the runner sends with the chunk event
 * in one statement; update rows appended here one record at a time.
 */
async function decideRows(
  db: Database,
  store: EventStore,
  metadata: EventMetadata,
  data: CommunicationImportRequested,
  columns: Column[],
  facts: ImportFacts,
  rows: CsvRow[],
  asOneEvent: boolean,
): Promise<{
  communicationIds: string[];
  errors: { row_number: number; message: string }[];
  appends: StreamAppend[];
  rowsId: string | null;
}> {
  const tenantId = metadata.tenant_id;
  const cellOf = (row: CsvRow, field: CommunicationImportField) => {
    const i = columns.indexOf(field);
    return i < 0 ? '' : (row.cells[i] ?? '');
  };
  const lookups: ChunkLookups = {
    institutionsByCode: new Map(),
    institutionsByName: new Map(),
    streams: new Map(),
    imported: new Map(),
  };
  if (data.mode === 'create') {
    const codes = [
      ...new Set(rows.map((r) => withSpreadsheetZeroRestored(nfkc(cellOf(r, 'institutionCode')))).filter(Boolean)),
    ];
    const names = [...new Set(rows.map((r) => cellOf(r, 'institutionName').trim()).filter(Boolean))];
    const found = await sql<{ id: string; code: string; name: string }>`
      SELECT id, code, name FROM ref.medical_institutions
       WHERE code = ANY(${sql.val(codes.filter((c) => !hasUnstorableCharacter(c)))}::text[])
          OR name = ANY(${sql.val(names.filter((n) => !hasUnstorableCharacter(n)))}::text[])`.execute(db.kysely);
    for (const r of found.rows) {
      lookups.institutionsByCode.set(r.code, r.id);
      lookups.institutionsByName.set(r.name, [...(lookups.institutionsByName.get(r.name) ?? []), r.id]);
    }
  } else {
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const ids = [...new Set(rows.map((r) => nfkc(cellOf(r, 'id')).toLowerCase()).filter((id) => uuid.test(id)))];
    const streams = ids.map((id) => streamId(communicationAggregate, id));
    const read = store.readStreams
      ? await store.readStreams(streams, { tenantId })
      : new Map(await Promise.all(streams.map(async (s) => [s, await readStreamOrEmpty(store, s, tenantId)] as const)));
    ids.forEach((id, i) => lookups.streams.set(id, read.get(streams[i]!) ?? []));
    lookups.imported = await importedRecords(
      db,
      store,
      tenantId,
      ids.filter((id) => lookups.streams.get(id)!.length === 0),
    );
  }

  const errors: { row_number: number; message: string }[] = [];
  const communicationIds: string[] = [];
  const context = { importId: data.import_id, callerId: metadata.account_id ?? '', mode: data.mode };
  // Two rows naming one record: the second is decided on the first's result, so they go in order.
  const updatesById = new Map<string, CsvRow[]>();
  const creates: { row: CsvRow; fields: CommunicationFields }[] = [];
  for (const row of rows) {
    if (data.mode === 'update') {
      const id = nfkc(cellOf(row, 'id')).toLowerCase();
      updatesById.set(id, [...(updatesById.get(id) ?? []), row]);
      continue;
    }
    const outcome = decideRow(row, columns, facts, lookups, context);
    if (outcome.fields) creates.push({ row, fields: outcome.fields });
    else errors.push(rowError(row.sheetRow, outcome.problems));
  }
  // A retried chunk re-appends the same events: the store answers them as already stored.
  let rowsId: string | null = null;
  let appends: StreamAppend[] = [];
  if (asOneEvent && creates.length > 0) {
    // Named by the chunk's first row: the same stream on every run of the chunk.
    rowsId = derivedId(data.import_id, 'rows', rows[0]!.rowNumber);
    const records = creates.map((c) => c.fields);
    for (const r of records) communicationIds.push(r.communication_id);
    // Where each record lives until its first write, written before the chunk: a row whose chunk never
    // got stored names a stream without the record, and a rerun writes the same rows.
    await sql`
      INSERT INTO cmd.imported_communications (tenant_id, communication_id, rows_id)
      SELECT ${tenantId}, id, ${rowsId} FROM unnest(${sql.val(communicationIds)}::uuid[]) AS r(id)
      ON CONFLICT DO NOTHING`.execute(db.kysely);
    appends = [
      {
        stream: streamId(communicationImportRowsAggregate, rowsId),
        events: [
          {
            id: derivedId(data.import_id, 'rows-event', rows[0]!.rowNumber),
            type: 'CommunicationsImported',
            data: { import_id: data.import_id, records: records.map(compactCommunication) },
            metadata,
          },
        ],
        expectedRevision: 'no_stream',
      },
    ];
  } else if (!asOneEvent)
    appends = creates.map(({ row, fields }) => {
      communicationIds.push(fields.communication_id);
      return {
        stream: streamId(communicationAggregate, fields.communication_id),
        events: [
          {
            id: derivedId(data.import_id, 'row', row.rowNumber),
            type: 'CommunicationCreated',
            data: { ...fields, tasks: [] },
            metadata,
          },
        ],
        expectedRevision: 'no_stream',
      };
    });
  await Promise.all(
    [...updatesById.entries()].map(async ([id, updateRows]) => {
      for (const row of updateRows) {
        const outcome = await applyUpdate(
          store,
          metadata,
          data.import_id,
          row,
          id,
          lookups.imported.get(id),
          (events) => decideRow(row, columns, facts, { ...lookups, streams: new Map([[id, events]]) }, context),
        );
        if (outcome.problems.length > 0) errors.push(rowError(row.sheetRow, outcome.problems));
        else communicationIds.push(id);
      }
    }),
  );
  errors.sort((a, b) => a.row_number - b.row_number);
  return { communicationIds, errors, appends, rowsId };
}

/** One update row on the record's latest state; a record changed meanwhile is decided again (3 tries). */
async function applyUpdate(
  store: EventStore,
  metadata: EventMetadata,
  importId: string,
  row: CsvRow,
  communicationId: string,
  imported: CommunicationImportAdopted | undefined,
  decide: (events: RecordedEvent[]) => RowOutcome,
): Promise<RowOutcome> {
  const stream = streamId(communicationAggregate, communicationId);
  const eventId = derivedId(importId, 'row', row.rowNumber);
  for (let attempt = 0; ; attempt++) {
    const events = /^[0-9a-f-]{36}$/.test(communicationId)
      ? await readStreamOrEmpty(store, stream, metadata.tenant_id)
      : [];
    if (events.some((e) => e.id === eventId)) return { problems: [] };
    const outcome = decide(events);
    if (!outcome.fields) return outcome;
    // A record of a create import never written since: its stream begins with it, as a hand edit's does.
    const adopted = events.length === 0 ? imported : undefined;
    const previous = events.map(parseCommunicationEvent).reduce<CommunicationFields | null>(
      (fields, e) => {
        if (e.type === 'CommunicationImportAdopted') return fieldsOfAdopted(e.data);
        if (e.type === 'CommunicationCreated') {
          const { tasks: _tasks, ...rest } = e.data;
          return rest;
        }
        return e.type === 'CommunicationUpdated' ? e.data : fields;
      },
      (adopted && fieldsOfAdopted(adopted)) ?? null,
    );
    // Nothing changes: no event, as an edit that changes nothing.
    if (stableJson(previous) === stableJson(outcome.fields)) return outcome;
    try {
      const beginning = adopted
        ? [
            {
              id: derivedId(communicationId, 'import-adopted'),
              type: 'CommunicationImportAdopted',
              data: adopted,
              metadata,
            },
          ]
        : [];
      await store.append(
        stream,
        [...beginning, { id: eventId, type: 'CommunicationUpdated', data: outcome.fields, metadata }],
        // Of two first writes (this and a hand edit), one begins the stream; the other reads it again.
        { expectedRevision: adopted ? 'no_stream' : events[events.length - 1]!.revision },
      );
      return outcome;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= 3) throw error;
    }
  }
}

/** Records each upload as a job of its own import queue; the import runner runs it (import-runner.ts). */
export const communicationImportReactor = createImportReactor({
  name: 'communication_import',
  eventType: 'CommunicationImportRequested',
  journal: communicationImportJournal,
  run: runCommunicationImport,
});
