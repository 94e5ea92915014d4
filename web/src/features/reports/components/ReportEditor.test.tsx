import { staticReportItems, type ReportResult } from '@renkei/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { emptyDefinition, type EditorValues } from '../report-editor.ts';
import { ReportEditor } from './ReportEditor.tsx';

const result: ReportResult = {
  columns: [{ key: 'medical_institution_name', label: '医療機関名', value_type: 'string' }],
  rows: [{ id: '00000000-0000-4000-8000-000000000001', medical_institution_name: 'さくら病院' }],
  meta: { total_count: 1, page: 1, per_page: 100, total_pages: 1 },
};

function renderEditor(onSave: (values: EditorValues) => Promise<unknown> = vi.fn(async () => undefined)) {
  const api = {
    medicalInstitutionReportsItemDefinitions: vi.fn(async () => staticReportItems.medical_institution_reports),
    medicalInstitutionReportsResults: vi.fn(async (_args: unknown) => result),
    listOwnDepartments: vi.fn(async () => [
      { id: '00000000-0000-4000-8000-000000000099', name: '内科', department_id: null, order: 1 },
    ]),
  };
  const initial = {
    ...emptyDefinition('medical_institution_reports', new Date('2026-11-30T00:00:00Z')),
    name: '月次紹介',
  };
  const { router } = renderInRouter(
    () => (
      <ReportEditor kind="medical_institution_reports" initial={initial} onSave={onSave} onCancel={() => undefined} />
    ),
    { api, paths: ['/crms/$id'] },
  );
  return { api, onSave, router };
}

// The options of the select just opened (other selects keep theirs in the page, hidden).
const openOptions = async (label: string | RegExp) => {
  const input = screen.getByLabelText(label, { selector: 'input' });
  await userEvent.click(input);
  await waitFor(() => expect(input).toHaveAttribute('aria-controls'));
  return within(document.getElementById(input.getAttribute('aria-controls')!)!);
};
const choose = async (label: string | RegExp, option: string) => {
  const list = await openOptions(label);
  await userEvent.click(await list.findByRole('option', { name: option, hidden: true }));
};

// Many selects to open one after another: slower than the default timeout on a busy machine.
describe('ReportEditor', { timeout: 60_000 }, () => {
  it('adds a periodic item with its aggregation method and previews the unsaved definition', async () => {
    const { api } = renderEditor();
    await screen.findByText('表示項目');
    await choose('項目を追加', '紹介数');
    await userEvent.click(screen.getByRole('button', { name: '追加' }));
    // A figure per period takes 合計/平均/件数; an attribute does not.
    await choose('紹介数の集計方法', '平均');
    expect(screen.queryByLabelText('医療機関名の集計方法')).not.toBeInTheDocument();
    await userEvent.click(screen.getByTestId('report-preview'));
    await screen.findByText('さくら病院');
    const body = (api.medicalInstitutionReportsResults.mock.calls[0]![0] as { body: { definition: EditorValues } })
      .body;
    expect(body.definition.display_items).toEqual([
      { item_key: 'medical_institution_name', label: null, aggregation_method: null, formula: null },
      { item_key: 'referral_count', label: null, aggregation_method: 'average', formula: null },
    ]);
  });

  it('builds a computed column from two figures', async () => {
    const { onSave } = renderEditor();
    await screen.findByText('表示項目');
    await userEvent.click(screen.getByRole('button', { name: '計算列を追加' }));
    await userEvent.type(screen.getByLabelText('計算列2の名前'), '紹介逆紹介差');
    await choose('計算列2の左の項目', '紹介数');
    await choose('計算列2の右の項目', '逆紹介数');
    await userEvent.click(screen.getByRole('radio', { name: '割る' }));
    await userEvent.click(screen.getByTestId('report-save'));
    await waitFor(() => expect(onSave).toHaveBeenCalled());
    const values = (onSave as ReturnType<typeof vi.fn>).mock.calls[0]![0] as EditorValues;
    expect(values.display_items[1]).toEqual({
      item_key: 'formula:1',
      label: '紹介逆紹介差',
      aggregation_method: null,
      formula: { left: 'referral_count', operator: 'slash', right: 'reverse_referral_count' },
    });
  });

  it('offers operators and value inputs by the item type', async () => {
    const { onSave } = renderEditor();
    await screen.findByText('絞り込み条件');
    await userEvent.click(screen.getByRole('button', { name: '条件を追加' }));
    await choose('条件1の項目', '運営状況');
    const list = await openOptions('条件1の条件');
    const selectionOps = (await list.findAllByRole('option', { hidden: true })).map((o) => o.textContent);
    expect(selectionOps).toEqual(['いずれかに一致', 'いずれにも一致しない', '空欄']);
    await userEvent.keyboard('{Escape}');
    await choose('条件1の値', '運営中');
    // A number item: comparison operators, a number input; a range takes two.
    await choose('条件1の項目', '紹介数');
    await choose('条件1の条件', '範囲');
    await userEvent.type(screen.getByLabelText('条件1の値（から）'), '3');
    await userEvent.type(screen.getByLabelText('条件1の値（まで）'), '10');
    expect(screen.getByLabelText('条件1の値（から）')).toHaveAttribute('type', 'number');
    await userEvent.click(screen.getByTestId('report-save'));
    await waitFor(() => expect(onSave).toHaveBeenCalled());
    const values = (onSave as ReturnType<typeof vi.fn>).mock.calls[0]![0] as EditorValues;
    expect(values.filter_conditions).toEqual([
      { item_key: 'referral_count', operator: 'between', values: ['3', '10'] },
    ]);
  });

  it('shows a 422 on its fields, and a message no field shows above the form', async () => {
    const onSave = vi.fn(async () => {
      throw new ApiError(422, '入力内容に誤りがあります', undefined, [
        { field: 'name', message: '同じ名前のレポートがあります' },
        { field: 'display_items.0.item_key', message: '同じ項目が重複しています' },
        { field: 'aggregation_settings.period', message: '期間は5年以内で指定してください' },
        { field: 'columns', message: '表示列が多すぎます。期間の単位を大きくするか項目を減らしてください' },
      ]);
    });
    renderEditor(onSave);
    await userEvent.click(await screen.findByTestId('report-save'));
    expect(await screen.findByText('同じ名前のレポートがあります')).toBeInTheDocument();
    expect(within(screen.getAllByTestId('display-item')[0]!).getByText('同じ項目が重複しています')).toBeInTheDocument();
    expect(screen.getByText('期間は5年以内で指定してください')).toBeInTheDocument();
    expect(within(screen.getByTestId('report-errors')).getByText(/表示列が多すぎます/)).toBeInTheDocument();
  });

  it('starts the comparison period a year before the period (前年同期), not equal to it', async () => {
    renderEditor();
    // The new report's period: the last twelve full months before 2026-11-30.
    expect(await screen.findByLabelText('期間（開始月）')).toHaveValue('2025-11');
    await userEvent.click(screen.getByLabelText('比較期間を指定する'));
    expect(screen.getByLabelText('比較期間（開始月）')).toHaveValue('2024-11');
    expect(screen.getByLabelText('比較期間（終了月）')).toHaveValue('2025-10');
  });

  it('hides the preview of settings since changed until it runs again, with the new settings', async () => {
    const { api } = renderEditor();
    await userEvent.click(await screen.findByTestId('report-preview'));
    await screen.findByText('さくら病院');
    api.medicalInstitutionReportsResults.mockResolvedValueOnce({
      ...result,
      rows: [{ id: '00000000-0000-4000-8000-000000000002', medical_institution_name: 'ひまわり医院' }],
    });
    await userEvent.click(screen.getByLabelText('比較期間を指定する'));
    // The rows answered the settings before the change: they must not read as the changed report's.
    expect(screen.queryByText('さくら病院')).not.toBeInTheDocument();
    expect(screen.getByTestId('report-preview-stale')).toHaveTextContent('設定を変更しました');
    await userEvent.click(screen.getByRole('button', { name: 'プレビューを更新' }));
    await screen.findByText('ひまわり医院');
    expect(screen.queryByTestId('report-preview-stale')).not.toBeInTheDocument();
    const body = (api.medicalInstitutionReportsResults.mock.calls[1]![0] as { body: { definition: EditorValues } })
      .body;
    expect(body.definition.aggregation_settings.comparison_period).not.toBeNull();
  });

  it('asks before leaving with settings not saved, and leaves without asking when the save moves on', async () => {
    const away = '/app/crms/00000000-0000-4000-8000-000000000001';
    const onSave = vi.fn(async () => {
      // As the report pages do: once saved, they navigate (to the report, or to its view).
      rendered.router.history.push(away);
    });
    const rendered = renderEditor(onSave);
    await userEvent.type(await screen.findByLabelText(/レポート名/), '（改）');
    rendered.router.history.push(away);
    const dialog = await screen.findByRole('dialog', { name: '保存していない変更があります' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'このページに戻る' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(rendered.router.state.location.pathname).toBe('/');

    await userEvent.click(screen.getByTestId('report-save'));
    await waitFor(() => expect(rendered.router.state.location.pathname).toBe(away.replace('/app', '')));
    expect(screen.queryByRole('dialog', { name: '保存していない変更があります' })).not.toBeInTheDocument();
  });

  it('checks locally before saving', async () => {
    const { onSave } = renderEditor();
    await userEvent.clear(await screen.findByLabelText(/レポート名/));
    await userEvent.click(screen.getByTestId('report-save'));
    expect(await screen.findByText('レポート名を入力してください')).toBeInTheDocument();
    expect(onSave).not.toHaveBeenCalled();
  });
});
