import { describe, it } from 'vitest';
import { ReportDefinitionInput, type ReportAlertSettings } from '@renkei/contracts';
import type { ReportDefinitionEvent } from '@renkei/domain';
import { invalid, notFound } from '../shared/decider.ts';
import { given } from '../shared/given-when-then.ts';
import { reportDefinitionDecider } from './report-definition.decider.ts';

const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
const alice = '11111111-1111-4111-8111-111111111111';
const stranger = '22222222-2222-4222-8222-222222222222';
const labelId = '33333333-3333-4333-8333-333333333333';
const kind = 'medical_institution_reports' as const;

const input = (over: Record<string, unknown> = {}) =>
  ReportDefinitionInput.parse({
    name: '紹介元ランキング',
    display_items: [
      { item_key: 'medical_institution_name' },
      { item_key: 'referral_count', aggregation_method: 'sum' },
    ],
    sort_conditions: [{ item_key: 'referral_count', direction: 'desc' }],
    aggregation_settings: { period: { from: '2025-04-01', to: '2026-03-31' } },
    ...over,
  });
const { name, ...definition } = input();

const created: ReportDefinitionEvent = {
  type: 'ReportDefinitionCreated',
  data: { report_definition_id: id, kind, name, definition, created_by_name: '連携 花子' },
};
const settings: ReportAlertSettings = {
  enabled: true,
  conditions: [{ item_key: 'referral_count', operator: 'gte', values: ['10'] }],
  notify_user_ids: [alice],
};

describe('report definition decider', () => {
  it('creates a definition of its kind', () => {
    given(reportDefinitionDecider)
      .when({
        type: 'CreateReportDefinition',
        reportDefinitionId: id,
        kind,
        input: input(),
        createdByName: '連携 花子',
      })
      .then([created]);
  });

  it('refuses unknown items, foreign methods, duplicates and bad formulas by field', () => {
    given(reportDefinitionDecider)
      .when({
        type: 'CreateReportDefinition',
        reportDefinitionId: id,
        kind,
        createdByName: null,
        input: input({
          display_items: [
            { item_key: 'medical_institution_name', aggregation_method: 'sum' },
            { item_key: 'medical_institution_name' },
            { item_key: 'no_such_item' },
            { item_key: 'hospital_admission_rate', aggregation_method: 'average' },
            { item_key: 'formula:ratio', formula: null, label: null },
            {
              item_key: 'formula:gap',
              label: '差',
              formula: { left: 'referral_count', operator: 'minus', right: 'x' },
            },
            { item_key: `label:${labelId}` },
          ],
          filter_conditions: [
            { item_key: 'own_department_name', operator: 'eq', values: ['内科'] },
            { item_key: 'referral_count', operator: 'gte', values: ['多い'] },
            { item_key: 'referral_count', operator: 'between', values: ['1'] },
          ],
          sort_conditions: [{ item_key: 'nope', direction: 'asc' }],
        }),
      })
      .thenRejected(
        invalid(
          { field: 'display_items.0.aggregation_method', message: 'この項目では選択できない集計方法です' },
          { field: 'display_items.1.item_key', message: 'この項目はすでに選択されています' },
          { field: 'display_items.2.item_key', message: 'この項目は使えません' },
          { field: 'display_items.3.aggregation_method', message: 'この項目では選択できない集計方法です' },
          { field: 'display_items.4.formula', message: '計算式を入力してください' },
          { field: 'display_items.4.label', message: '計算項目の表示名を入力してください' },
          { field: 'display_items.5.formula.right', message: '計算に使える項目を選択してください' },
          { field: 'filter_conditions.0.item_key', message: 'この項目では絞り込めません' },
          { field: 'filter_conditions.1.values', message: '数値を入力してください' },
          { field: 'filter_conditions.2.values', message: '範囲の下限と上限を入力してください' },
          { field: 'sort_conditions.0.item_key', message: 'この項目では並べ替えられません' },
        ),
      );
  });

  it('takes a formula of two figures and a label item of a kind with labels', () => {
    const body = input({
      display_items: [
        {
          item_key: 'formula:ratio',
          label: '入院割合',
          formula: { left: 'hospital_admission_count', operator: 'slash', right: 'referral_count' },
        },
        { item_key: `label:${labelId}` },
      ],
    });
    given(reportDefinitionDecider)
      .when({ type: 'CreateReportDefinition', reportDefinitionId: id, kind, input: body, createdByName: null })
      .thenMatches([{ type: 'ReportDefinitionCreated' }]);
    given(reportDefinitionDecider)
      .when({
        type: 'CreateReportDefinition',
        reportDefinitionId: id,
        kind: 'own_department_reports',
        input: input({ display_items: [{ item_key: `label:${labelId}` }], sort_conditions: [] }),
        createdByName: null,
      })
      .thenRejected(invalid({ field: 'display_items.0.item_key', message: 'この項目は使えません' }));
  });

  it('checks as the report run does: filters and sorts on formula columns, the column limit', () => {
    // A label's type is unknown here: its values are checked when the report runs with the tenant's items.
    given(reportDefinitionDecider)
      .when({
        type: 'CreateReportDefinition',
        reportDefinitionId: id,
        kind,
        createdByName: null,
        input: input({
          display_items: [
            { item_key: 'referral_count' },
            {
              item_key: 'formula:gap',
              label: '差',
              formula: { left: 'referral_count', operator: 'minus', right: 'visit_count' },
            },
            { item_key: `label:${labelId}` },
          ],
          filter_conditions: [
            { item_key: 'formula:gap', operator: 'gte', values: ['1'] },
            { item_key: `label:${labelId}`, operator: 'between', values: ['1', '9'] },
          ],
          sort_conditions: [{ item_key: 'formula:gap', direction: 'desc' }],
        }),
      })
      .thenMatches([{ type: 'ReportDefinitionCreated' }]);
    // Four years of weeks for two figures: over 400 columns, which the run would refuse.
    given(reportDefinitionDecider)
      .when({
        type: 'CreateReportDefinition',
        reportDefinitionId: id,
        kind,
        createdByName: null,
        input: input({
          display_items: [{ item_key: 'referral_count' }, { item_key: 'first_visit_count' }],
          sort_conditions: [],
          aggregation_settings: { period: { from: '2021-04-01', to: '2025-03-31' }, period_unit: 'week' },
        }),
      })
      .thenRejected(
        invalid({
          field: 'display_items',
          message: '表示列が多すぎます。期間の単位を大きくするか項目を減らしてください',
        }),
      );
  });

  it('refuses periods longer than five years, the comparison period too', () => {
    given(reportDefinitionDecider)
      .when({
        type: 'CreateReportDefinition',
        reportDefinitionId: id,
        kind,
        createdByName: null,
        input: input({
          aggregation_settings: {
            period: { from: '2020-04-01', to: '2025-04-01' },
            comparison_period: { from: '2019-04-01', to: '2024-03-31' },
          },
        }),
      })
      .thenRejected(invalid({ field: 'aggregation_settings.period', message: '期間は5年以内で指定してください' }));
  });

  it('updates with the next version, and records nothing for the same content', () => {
    const renamed = input({ name: '紹介元ランキング2025' });
    given(reportDefinitionDecider, [created])
      .when({ type: 'UpdateReportDefinition', reportDefinitionId: id, kind, input: renamed })
      .then([
        {
          type: 'ReportDefinitionUpdated',
          data: { report_definition_id: id, name: '紹介元ランキング2025', definition, version: 1 },
        },
      ]);
    given(reportDefinitionDecider, [created])
      .when({ type: 'UpdateReportDefinition', reportDefinitionId: id, kind, input: input() })
      .then([]);
  });

  it('answers not found for another kind, a deleted or a missing definition', () => {
    given(reportDefinitionDecider, [created])
      .when({ type: 'DeleteReportDefinition', reportDefinitionId: id, kind: 'area_reports' })
      .thenRejected(notFound());
    const deleted: ReportDefinitionEvent = { type: 'ReportDefinitionDeleted', data: { report_definition_id: id } };
    given(reportDefinitionDecider, [created])
      .when({ type: 'DeleteReportDefinition', reportDefinitionId: id, kind })
      .then([deleted]);
    given(reportDefinitionDecider, [created, deleted])
      .when({ type: 'UpdateReportDefinition', reportDefinitionId: id, kind, input: input() })
      .thenRejected(notFound());
    given(reportDefinitionDecider)
      .when({ type: 'RaiseReportAlert', reportDefinitionId: id, alertDate: '2026-04-01' })
      .thenRejected(notFound());
  });

  it('changes alert settings of tenant accounts only', () => {
    given(reportDefinitionDecider, [created])
      .when({
        type: 'ChangeReportAlertSettings',
        reportDefinitionId: id,
        kind,
        settings,
        knownAccountIds: new Set([alice]),
      })
      .then([
        {
          type: 'ReportAlertSettingsChanged',
          data: { report_definition_id: id, alert_settings: settings, version: 1 },
        },
      ]);
    given(reportDefinitionDecider, [created])
      .when({
        type: 'ChangeReportAlertSettings',
        reportDefinitionId: id,
        kind,
        settings: {
          ...settings,
          notify_user_ids: [alice, stranger],
          conditions: [{ item_key: 'zz', operator: 'eq', values: ['1'] }],
        },
        knownAccountIds: new Set([alice]),
      })
      .thenRejected(
        invalid(
          { field: 'conditions.0.item_key', message: 'この項目では絞り込めません' },
          { field: 'notify_user_ids.1', message: 'ユーザーが見つかりません' },
        ),
      );
  });

  it('raises an alert once a day, without moving the version', () => {
    const raised: ReportDefinitionEvent = {
      type: 'ReportAlertRaised',
      data: { report_definition_id: id, alert_date: '2026-04-01' },
    };
    given(reportDefinitionDecider, [created])
      .when({ type: 'RaiseReportAlert', reportDefinitionId: id, alertDate: '2026-04-01' })
      .then([raised]);
    given(reportDefinitionDecider, [created, raised])
      .when({ type: 'RaiseReportAlert', reportDefinitionId: id, alertDate: '2026-04-01' })
      .then([]);
    // The version after an alert is still the user's: an update names version 1.
    given(reportDefinitionDecider, [created, raised])
      .when({ type: 'UpdateReportDefinition', reportDefinitionId: id, kind, input: input({ name: '別名' }) })
      .thenMatches([{ type: 'ReportDefinitionUpdated', data: { version: 1 } }]);
  });
});
