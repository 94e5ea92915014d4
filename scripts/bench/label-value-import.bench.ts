import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { featureKeys } from '../../libs/contracts/src/index.ts';
import { blankLabelValue, medicalInstitutionCrmKey } from '../../libs/domain/src/index.ts';
import {
  createPostgresEventStore,
  newEventMetadata,
  streamId,
  type RecordedEvent,
} from '../../libs/event-store/src/index.ts';
import { generateInstitutionMaster, importInstitutionMaster } from '../../libs/institution-master/src/index.ts';
import { catchUpProjections, waitForPosition } from '../../libs/projections/src/index.ts';
import { medicalInstitutionCrmProjection } from '../../libs/read-models/src/index.ts';
import { buildTestCommandApp } from '../../services/command/src/testing.ts';
import { projections, reactors, startWorker } from '../../services/worker/src/index.ts';
import { round } from './http-bench-support.ts';
import type { BenchDefinition, BenchFigure } from './bench-context.ts';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
const INSTITUTIONS = Math.min(20_000, ROWS);
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

export const bench: BenchDefinition = {
  name: 'label-value-import',
  description:
    'Label-value import of 100,000 rows end to end: multipart upload to the command service over HTTP, the worker (every projection and reactor running) until the import is recorded finished and the CRM read model holds the values. Baseline: appending the same number of label-value events straight to the store, 500 at a time (and the same by appendMany, alternating).',
  async run(ctx) {
    const db = await ctx.openDatabase();
    const store = await createPostgresEventStore(db);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'renkei-bench-import-'));
    process.env.RENKEI_DATA_DIR = dir;
    const figures: BenchFigure[] = [];
    try {
      const master = path.join(dir, 'master.csv');
      await generateInstitutionMaster(master, { count: INSTITUTIONS, seed: 11 });
      await importInstitutionMaster(db, master);
      const { rows: institutions } = await db.pool.query<{ id: string; code: string }>(
        'SELECT id, code FROM ref.medical_institutions ORDER BY code',
      );
      ctx.log(`${institutions.length} institutions`);

      const tenantId = randomUUID();
      const label = randomUUID();
      await store.append(
        streamId('medical_institution_label', label),
        [
          {
            type: 'MedicalInstitutionLabelCreated',
            data: {
              label_id: label,
              name: '医師数',
              description: '',
              component_type: 'integer',
              selections: [],
              areas: [],
            },
            metadata: newEventMetadata(tenantId),
          },
        ],
        { expectedRevision: 'no_stream' },
      );
      await catchUpProjections({ db, store, projections: [medicalInstitutionCrmProjection] });

      // Every row changes its institution's value (5 rows per institution at 100,000 rows).
      const csv = path.join(dir, 'values.csv');
      const lines = ['医療機関コード,医師数'];
      for (let i = 0; i < ROWS; i++) lines.push(`${institutions[i % institutions.length]!.code},${i + 1}`);
      fs.writeFileSync(csv, lines.join('\r\n') + '\r\n');
      ctx.log(`file ${(fs.statSync(csv).size / 1024 / 1024).toFixed(1)} MB, ${ROWS} rows`);

      // Baselines: the same number of label-value events appended straight to the store, 500 streams at a
      // time, by one append per stream (group commit) and by one appendMany per 500 (what the import
      // uses), alternating halves so both see the same load.
      const baseTenant = randomUUID();
      const eventAt = (i: number) => {
        const inst = institutions[i % institutions.length]!;
        return {
          stream: streamId('medical_institution_crm', medicalInstitutionCrmKey(baseTenant, inst.id)),
          events: [
            {
              type: 'MedicalInstitutionLabelValuesChanged',
              data: {
                medical_institution_id: inst.id,
                values: [{ ...blankLabelValue(label), integer_value: i }],
                removed_label_ids: [],
                previous: [],
                import_id: null,
              },
              metadata: newEventMetadata(baseTenant),
            },
          ],
          expectedRevision: 'any' as const,
        };
      };
      const spent = { append: 0, appendMany: 0 };
      const half = Math.floor(ROWS / 2);
      for (const [phase, from, to] of [
        ['append', 0, half],
        ['appendMany', 0, half],
        ['appendMany', half, ROWS],
        ['append', half, ROWS],
      ] as const) {
        const p0 = performance.now();
        for (let start = from; start < to; start += 500) {
          const batch = Array.from({ length: Math.min(500, to - start) }, (_, k) => eventAt(start + k));
          if (phase === 'append')
            await Promise.all(batch.map((a) => store.append(a.stream, a.events, { expectedRevision: 'any' })));
          else {
            const outcomes = await store.appendMany(batch);
            const failed = outcomes.find((o) => !o.ok);
            if (failed && !failed.ok) throw failed.error;
          }
        }
        spent[phase] += performance.now() - p0;
      }
      const rawRate = ROWS / (spent.append / 1000);
      const manyRate = ROWS / (spent.appendMany / 1000);
      ctx.log(`raw append ${Math.round(rawRate)} events/s, appendMany ${Math.round(manyRate)} events/s`);
      figures.push({
        metric: `appendMany of ${ROWS} label-value events, 500 streams per call`,
        value: round(manyRate, 0),
        unit: 'events/s',
        baseline: {
          label: 'one append per stream, 500 at once (group commit)',
          value: round(rawRate, 0),
          unit: 'events/s',
        },
        ratio: round(manyRate / rawRate, 2),
      });
      let t0 = performance.now();
      await catchUpProjections({ db, store, projections });

      const { app, testAuth } = await buildTestCommandApp(db, store);
      await app.listen({ host: '127.0.0.1', port: 0 });
      const port = (app.server.address() as AddressInfo).port;
      const worker = await startWorker({ db, store, projections, reactors, logger: silent, kafkaBrokers: null });
      try {
        const token = await testAuth.token({ tenantId, accountId: randomUUID(), features: [...featureKeys] });
        const form = new FormData();
        form.append('encoding', 'utf-8');
        form.append('file', new Blob([fs.readFileSync(csv)], { type: 'text/csv' }), 'values.csv');
        t0 = performance.now();
        const res = await fetch(`http://127.0.0.1:${port}/api/imports/medical_institution_label_values`, {
          method: 'POST',
          body: form,
          headers: { authorization: `Bearer ${token}` },
        });
        if (res.status !== 202) throw new Error(`upload: ${res.status} ${await res.text()}`);
        const { id } = (await res.json()) as { id: string };
        const uploadMs = performance.now() - t0;
        let finished: { imported_row_count: number; status: string } | undefined;
        let finishedEvent: RecordedEvent | undefined;
        // A request during the import: the server keeps answering.
        let slowestHealthMs = 0;
        while (!finished) {
          const h0 = performance.now();
          await fetch(`http://127.0.0.1:${port}/healthz`);
          slowestHealthMs = Math.max(slowestHealthMs, performance.now() - h0);
          await new Promise((r) => setTimeout(r, 100));
          const events = await store.readStream(streamId('medical_institution_label_value_import', id), { tenantId });
          finishedEvent = events.find((e) => e.type === 'LabelValueImportFinished');
          finished = finishedEvent?.data as typeof finished;
        }
        const finishedMs = performance.now() - t0;
        // End to end: the values are in the CRM read model (what the institution pages and searches read).
        if (!(await waitForPosition(db, [medicalInstitutionCrmProjection.name], finishedEvent!.position, 300_000)))
          throw new Error('the CRM read model did not reach the end of the import');
        const rate = ROWS / ((performance.now() - t0) / 1000);
        if (finished.status !== 'completed' || finished.imported_row_count !== ROWS)
          throw new Error(`import: ${JSON.stringify(finished)}`);
        // Each institution's last row wins: rows ROWS - INSTITUTIONS + 1 … ROWS.
        const { rows: visible } = await db.pool.query<{ n: number; total: string }>(
          'SELECT count(*)::int AS n, sum(integer_value)::text AS total FROM rm.mi_label_values WHERE tenant_id = $1',
          [tenantId],
        );
        const expectedTotal = (BigInt(ROWS - INSTITUTIONS + 1 + ROWS) * BigInt(INSTITUTIONS)) / 2n;
        if (visible[0]!.n !== INSTITUTIONS || visible[0]!.total !== expectedTotal.toString())
          throw new Error(
            `read model: ${JSON.stringify(visible[0])}, expected ${INSTITUTIONS} values summing to ${expectedTotal}`,
          );
        ctx.log(
          `upload ${Math.round(uploadMs)} ms; import recorded finished after ${Math.round(finishedMs)} ms; values in the read model after ${Math.round(performance.now() - t0)} ms; slowest /healthz during the import ${Math.round(slowestHealthMs)} ms`,
        );
        figures.unshift({
          metric: `label-value import, ${ROWS} rows, HTTP upload to finished and values in the CRM read model`,
          value: round(rate, 0),
          unit: 'rows/s',
          baseline: {
            label: 'raw append of one label-value event per row',
            value: round(rawRate, 0),
            unit: 'events/s',
          },
          ratio: round(rate / rawRate, 2),
          goal: '≥ 10,000 rows/s',
          met: rate >= 10_000,
        });
        figures.splice(1, 0, {
          metric: 'slowest /healthz during the import',
          value: round(slowestHealthMs, 0),
          unit: 'ms',
        });
      } finally {
        await worker.stop();
        await app.close();
      }
      return figures;
    } finally {
      await store.close();
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};
