import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@renkei/db';
import { reportDefinitionAggregate } from '@renkei/domain';
import { createPostgresEventStore, newEventMetadata, streamId, type EventStore } from '@renkei/event-store';
import { createReportAlertMailReactor, sendPendingReportAlerts } from './report-alert-mail.reactor.ts';
import { castOf, createTestAccounts, mailCatcher } from '../notifications/notification-mail.testing.ts';
import { workerReactors } from '../reactors.ts';

let db: TestDatabase;
let store: EventStore;
const cast = castOf('enabled_medical_institution_report_alert');
const { tenantId } = cast;
const {
  wants: named,
  settingOff: namedSettingOff,
  masterOff: namedMasterOff,
  inactive: namedInactive,
  otherTenant,
} = cast.ids;
const owner = randomUUID();
const notNamed = randomUUID();

beforeAll(async () => {
  db = await createTestDatabase();
  store = await createPostgresEventStore(db);
  await createTestAccounts(db, [
    ...cast.accounts,
    { id: owner, tenant_id: tenantId, username: '連携 太郎', email: 'taro@sakura.example' },
    { id: notNamed, tenant_id: tenantId, username: '小林 六郎', email: 'rokuro@sakura.example' },
  ]);
});

afterAll(async () => {
  await store?.close();
  await db?.close();
});

const definition = {
  display_items: [{ item_key: 'medical_institution_name', label: null, aggregation_method: null, formula: null }],
  filter_conditions: [],
  sort_conditions: [],
  aggregation_settings: {
    period: { from: '2026-04-01', to: '2026-09-30' },
    period_unit: 'month',
    unit_type: 'month',
    comparison_period: null,
    own_department_ids: [],
  },
};

/** A tenant's institution report whose alert notifies `notifyUserIds`; answers its id. */
async function reportNotifying(notifyUserIds: string[], name = '紹介ゼロの紹介元') {
  const id = randomUUID();
  await store.append(
    streamId(reportDefinitionAggregate, id),
    [
      {
        type: 'ReportDefinitionCreated',
        data: {
          report_definition_id: id,
          kind: 'medical_institution_reports',
          name,
          definition,
          created_by_name: null,
        },
        metadata: newEventMetadata(tenantId, owner),
      },
      {
        type: 'ReportAlertSettingsChanged',
        data: {
          report_definition_id: id,
          alert_settings: {
            enabled: true,
            conditions: [{ item_key: 'referral_count', operator: 'lte', values: ['0'] }],
            notify_user_ids: notifyUserIds,
          },
          version: 1,
        },
        metadata: newEventMetadata(tenantId, owner),
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  return id;
}

async function alertRaised(id: string, alertDate: string) {
  const stream = streamId(reportDefinitionAggregate, id);
  await store.append(
    stream,
    [
      {
        type: 'ReportAlertRaised',
        data: { report_definition_id: id, alert_date: alertDate },
        metadata: { ...newEventMetadata(tenantId, null), schema_version: 1 },
      },
    ],
    { expectedRevision: 'any' },
  );
  return (await store.readStream(stream, { tenantId })).at(-1)!;
}

const ctx = () => ({ db, store });

describe('the report alert mail', () => {
  it('mails the accounts the alert names, that want it, once per definition, account and day', async () => {
    const reportId = await reportNotifying([named, namedSettingOff, namedMasterOff, namedInactive, otherTenant, named]);
    const raised = await alertRaised(reportId, '2026-11-30');
    const reactor = createReportAlertMailReactor();
    await reactor.handle([raised], ctx());
    await reactor.handle([raised], ctx()); // the batch delivered again

    const { mails, transport, failOnce } = mailCatcher();
    const options = { transport, origin: 'https://renkei.example', from: 'Renkei <no-reply@renkei.example>' };
    failOnce();
    await expect(sendPendingReportAlerts(db, options)).rejects.toThrow('SMTP 451');
    expect(mails).toHaveLength(0);

    // The next round and a second worker at the same moment: the refused mail leaves once.
    const sent = await Promise.all([sendPendingReportAlerts(db, options), sendPendingReportAlerts(db, options)]);
    expect(sent.reduce((x, y) => x + y, 0)).toBe(1);
    expect(mails.map((m) => m.to.address)).toEqual(['hanako@sakura.example']);
    const [mail] = mails;
    expect(mail!.subject).toBe('【Renkei】医療機関レポート「紹介ゼロの紹介元」のアラート（2026年11月30日）');
    expect(mail!.text).toContain('山田 花子さん');
    expect(mail!.text).toContain(
      '医療機関レポート「紹介ゼロの紹介元」で、2026年11月30日にアラート条件に合う医療機関がありました。',
    );
    expect(mail!.text).toContain(`https://renkei.example/app/medical_institutions_reports/${reportId}`);
    expect(mail!.messageId).toBe(`<report-alert-${reportId}-${named}-2026-11-30@renkei>`);

    // A restart repeats the batch and the rounds: nothing more leaves.
    await reactor.handle([raised], ctx());
    expect(await sendPendingReportAlerts(db, options)).toBe(0);
    expect(mails).toHaveLength(1);

    // The next day's alert of the same report is a mail of its own.
    await reactor.handle([await alertRaised(reportId, '2026-12-01')], ctx());
    expect(await sendPendingReportAlerts(db, options)).toBe(1);
    expect(mails.map((m) => m.subject)).toEqual([
      '【Renkei】医療機関レポート「紹介ゼロの紹介元」のアラート（2026年11月30日）',
      '【Renkei】医療機関レポート「紹介ゼロの紹介元」のアラート（2026年12月1日）',
    ]);
  });

  it('names whom the settings named when the alert fired, under the name it had then', async () => {
    const reportId = await reportNotifying([notNamed], '旧名');
    await store.append(
      streamId(reportDefinitionAggregate, reportId),
      [
        {
          type: 'ReportDefinitionUpdated',
          data: { report_definition_id: reportId, name: '訪問が必要な紹介元', definition, version: 2 },
          metadata: newEventMetadata(tenantId, owner),
        },
      ],
      { expectedRevision: 'any' },
    );
    const raised = await alertRaised(reportId, '2026-11-30');
    // Named afterwards: not for this alert.
    await store.append(
      streamId(reportDefinitionAggregate, reportId),
      [
        {
          type: 'ReportAlertSettingsChanged',
          data: {
            report_definition_id: reportId,
            alert_settings: { enabled: true, conditions: [], notify_user_ids: [notNamed, named] },
            version: 3,
          },
          metadata: newEventMetadata(tenantId, owner),
        },
      ],
      { expectedRevision: 'any' },
    );
    const { mails, transport } = mailCatcher();
    const options = { transport, origin: 'https://renkei.example', from: 'Renkei <no-reply@renkei.example>' };
    await createReportAlertMailReactor().handle([raised], ctx());
    expect(await sendPendingReportAlerts(db, options)).toBe(1);
    expect(mails.map((m) => m.to.address)).toEqual(['rokuro@sakura.example']);
    expect(mails[0]!.subject).toContain('「訪問が必要な紹介元」');
  });

  it("is sent by the reactor's own loop, registered with the worker's reactors", async () => {
    const reportId = await reportNotifying([notNamed], '逆紹介の多い紹介元');
    const raised = await alertRaised(reportId, '2026-12-02');
    const { mails, transport } = mailCatcher();
    const reactor = createReportAlertMailReactor({ transport: () => transport, intervalMs: 1 });
    expect(workerReactors().map((r) => r.name)).toEqual(expect.arrayContaining([reactor.name, 'alert_summary']));
    await reactor.handle([raised], ctx());
    const abort = new AbortController();
    const running = reactor.background!({ db, store, signal: abort.signal });
    await expect.poll(() => mails.length, { timeout: 30_000 }).toBe(1);
    abort.abort();
    await running;
    expect(mails[0]!.subject).toContain('「逆紹介の多い紹介元」');
  });
});
