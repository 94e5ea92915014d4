import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { featureKeys } from '../../libs/contracts/src/index.ts';
import { blankLabelValue, medicalInstitutionCrmKey } from '../../libs/domain/src/index.ts';
import { createPostgresEventStore, newEventMetadata, streamId } from '../../libs/event-store/src/index.ts';
import { generateInstitutionMaster, importInstitutionMaster } from '../../libs/institution-master/src/index.ts';
import { catchUpProjections } from '../../libs/projections/src/index.ts';
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
    'Label-value import of 100,000 rows end to end: multipart upload to the command service over HTTP, the worker (every projection and reactor running) until the import is recorded finished. Baseline: appending the same number of label-value events straight to the store, 500 at a time.',
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

      // Baseline: the same number of label-value events appended straight to the store, 500 streams at a time.
      const baseTenant = randomUUID();
      let t0 = performance.now();
      for (let start = 0; start < ROWS; start += 500) {
        await Promise.all(
          Array.from({ length: Math.min(500, ROWS - start) }, (_, k) => {
            const inst = institutions[(start + k) % institutions.length]!;
            return store.append(
              streamId('medical_institution_crm', medicalInstitutionCrmKey(baseTenant, inst.id)),
              [
                {
                  type: 'MedicalInstitutionLabelValuesChanged',
                  data: {
                    medical_institution_id: inst.id,
                    values: [{ ...blankLabelValue(label), integer_value: start + k }],
                    removed_label_ids: [],
                    previous: [],
                    import_id: null,
                  },
                  metadata: newEventMetadata(baseTenant),
                },
              ],
              { expectedRevision: 'any' },
            );
          }),
        );
      }
      const rawRate = ROWS / ((performance.now() - t0) / 1000);
      ctx.log(`raw append ${Math.round(rawRate)} events/s`);
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
        // A request during the import: the server keeps answering.
        let slowestHealthMs = 0;
        while (!finished) {
          const h0 = performance.now();
          await fetch(`http://127.0.0.1:${port}/healthz`);
          slowestHealthMs = Math.max(slowestHealthMs, performance.now() - h0);
          await new Promise((r) => setTimeout(r, 100));
          const events = await store.readStream(streamId('medical_institution_label_value_import', id), { tenantId });
          finished = events.find((e) => e.type === 'LabelValueImportFinished')?.data as typeof finished;
        }
        const rate = ROWS / ((performance.now() - t0) / 1000);
        if (finished.status !== 'completed' || finished.imported_row_count !== ROWS)
          throw new Error(`import: ${JSON.stringify(finished)}`);
        ctx.log(
          `upload ${Math.round(uploadMs)} ms; slowest /healthz during the import ${Math.round(slowestHealthMs)} ms`,
        );
        figures.push({
          metric: `label-value import, ${ROWS} rows, HTTP upload to finished`,
          value: round(rate, 0),
          unit: 'rows/s',
          baseline: { label: 'raw append of the same events', value: round(rawRate, 0), unit: 'events/s' },
          ratio: round(rate / rawRate, 2),
          goal: '≥ 10,000 rows/s',
          met: rate >= 10_000,
        });
        figures.push({ metric: 'slowest /healthz during the import', value: round(slowestHealthMs, 0), unit: 'ms' });
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
