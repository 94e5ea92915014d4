import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Database } from '@renkei/db';
import {
  checkLabelValues,
  blankLabelValue,
  labelValueImportAggregate,
  parseLabelValueImportEvent,
  compactLabelValue,
  type ImportedLabelValueRowInput,
  type LabelDefinition,
  type LabelValueData,
} from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import { withSpreadsheetZeroRestored } from '@renkei/institution-master';
import { waitForPosition } from '@renkei/projections';
import { medicalInstitutionCrmProjection } from '@renkei/read-models';
import { ImportNotReadyError, type ImportRunControl } from './import-queue.ts';
import {
  createImportReactor,
  hasUnstorableCharacter,
  importCsvRows,
  ImportRun,
  importJournal,
  nfkc,
  rowError,
  type CsvRow,
  type RowError,
} from './import-runner.ts';
const codeHeader = '医療機関コード';
const ignoredHeaders = new Set(['医療機関名', '名称']);

const int4 = { min: -2147483648, max: 2147483647 };

/** Ids of events the reactor appends derive from the import and their place in it, so a repeated run appends nothing new. */
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

/**
 * Rows per chunk: a chunk is one event and one append whatever its rows, so the statement's fixed
 * cost (round trip, the store's commit-order lock, the projection's batch) is shared by 2,000 rows;
 * another tenant's import waits at most one chunk (~0.1–0.3 s) for its turn.
 */
export const labelValueChunkRows = 2_000;
const legacyChunkRows = 500;

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
      `label value import ${labelValueImportJournal.request(requested).import_id}: the ${medicalInstitutionCrmProjection.name} read model has not reached the upload yet`,
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

/**
 * Runs one import (the chunk loop, resume and counts are the import runner's): a row with any problem
 * is reported by its number and applied not at all; a chunk's valid rows travel in its chunk event
 * (`MedicalInstitutionLabelValuesImported`), which the CRM projection applies. A problem with the file itself (no code column, unknown label, broken CSV) stops
 * the run there.
 */
export async function runLabelValueImport(
  db: Database,
  store: EventStore,
  requested: RecordedEvent,
  control?: ImportRunControl,
): Promise<void> {
  const run = await ImportRun.open(store, requested, labelValueImportJournal, { control });
  if (!run) return;
  const data = run.request;
  // Before anything is recorded: a run that cannot see the labels yet leaves the import waiting.
  const labels = await loadTenantLabels(db, requested);

  let columns: (LabelDefinition | 'code' | null)[] = [];
  const validate = (row: CsvRow, idByCode: Map<string, string>) => {
    const codeCell = row.cells[columns.indexOf('code')] ?? '';
    const problems: string[] = [];
    const unstorableIn = columns.flatMap((col, i) =>
      col !== null && hasUnstorableCharacter(row.cells[i] ?? '') ? [col === 'code' ? codeHeader : col.name] : [],
    );
    if (unstorableIn.length > 0) {
      problems.push(`「${unstorableIn.join('」「')}」に使用できない文字（制御文字など）が含まれています`);
      return { problems, institutionId: undefined, values: [] };
    }
    const code = withSpreadsheetZeroRestored(nfkc(codeCell));
    const institutionId = idByCode.get(code);
    if (!institutionId)
      problems.push(code ? `医療機関コード「${code}」は登録されていません` : '医療機関コードを入力してください');
    const values: LabelValueData[] = [];
    columns.forEach((col, i) => {
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

  // An import begun before chunks carried their rows resumes in the chunks it was begun with.
  const begunWithRowEvents = (
    await readStreamOrEmpty(store, streamId(labelValueImportAggregate, data.import_id), run.tenantId)
  ).some((e) => e.type === 'LabelValueImportChunkProcessed');
  await importCsvRows(run, {
    path: data.stored_path,
    encoding: data.encoding,
    chunkSize: begunWithRowEvents ? legacyChunkRows : labelValueChunkRows,
    // A chunk reads the master and the labels only, never what earlier chunks wrote.
    prepareAhead: true,
    header(cells) {
      const mapped = cells.map((h) => {
        const name = nfkc(h);
        if (name === codeHeader) return 'code' as const;
        if (ignoredHeaders.has(name) || name === '') return null;
        return labels.byName.get(name) ?? name;
      });
      const unknown = mapped.filter((c): c is string => typeof c === 'string' && c !== 'code');
      if (!mapped.includes('code')) return '1行目（見出し）に「医療機関コード」の列がありません';
      if (unknown.length > 0) return `見出しのラベル「${unknown.join('」「')}」は登録されていません`;
      columns = mapped as (LabelDefinition | 'code' | null)[];
      return null;
    },
    async chunk(rows) {
      const codes = [
        ...new Set(
          rows
            .map((r) => withSpreadsheetZeroRestored(nfkc(r.cells[columns.indexOf('code')] ?? '')))
            .filter((c) => !hasUnstorableCharacter(c)),
        ),
      ];
      const found = await sql<{ code: string; id: string }>`
        SELECT code, id FROM ref.medical_institutions WHERE code = ANY(${sql.val(codes)}::text[])`.execute(db.kysely);
      const idByCode = new Map(found.rows.map((r) => [r.code, r.id]));
      const imported: ImportedLabelValueRowInput[] = [];
      const errors: RowError[] = [];
      let valid = 0;
      for (const row of rows) {
        const { problems, institutionId, values } = validate(row, idByCode);
        if (problems.length > 0 || !institutionId) {
          errors.push(rowError(row.sheetRow, problems));
          continue;
        }
        valid++;
        // A row of empty cells changes nothing but counts as imported.
        if (values.length > 0)
          imported.push({
            row_number: row.rowNumber,
            medical_institution_id: institutionId,
            values: values.map(compactLabelValue),
          });
      }
      // The chunk's record carries its rows: one event on the import's own stream, one append, whatever
      // the number of institutions (docs/decisions.md, "Label-value imports record a chunk as one facts event").
      return {
        type: 'MedicalInstitutionLabelValuesImported',
        imported: valid,
        failed: errors.length,
        errors,
        data: { rows: imported },
      };
    },
  });
}

/** How a label-value import records itself (import-runner.ts). */
const labelValueImportJournal = importJournal({
  aggregate: labelValueImportAggregate,
  parse: parseLabelValueImportEvent,
  eventId: (importId, ...parts) => eventId(importId, ...parts),
  requestedType: 'LabelValueImportRequested',
  startedType: 'LabelValueImportStarted',
  finishedType: 'LabelValueImportFinished',
  endedTypes: ['LabelValueImportFinished'],
  chunkTypes: ['LabelValueImportChunkProcessed', 'MedicalInstitutionLabelValuesImported'],
});

/** Records each upload as a job of the import queue; the import runner runs it (import-runner.ts). */
export function createLabelValueImportReactor(queue: Parameters<typeof createImportReactor>[0]['queue'] = {}) {
  return createImportReactor({
    name: 'medical_institution_label_value_import',
    eventType: 'LabelValueImportRequested',
    journal: labelValueImportJournal,
    run: runLabelValueImport,
    queue,
  });
}

export const labelValueImportReactor = createLabelValueImportReactor();
