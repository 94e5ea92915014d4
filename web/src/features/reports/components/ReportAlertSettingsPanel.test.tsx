import { staticReportItems, type ReportAlertSettings } from '@renkei/contracts';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { ReportAlertSettingsPanel } from './ReportAlertSettingsPanel.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const saved: ReportAlertSettings = {
  enabled: true,
  conditions: [{ item_key: 'referral_count', operator: 'lte', values: ['0'] }],
  notify_user_ids: [id(31)],
};

function renderPanel(update: (args: unknown) => Promise<unknown>, settings: ReportAlertSettings = saved) {
  const api = {
    medicalInstitutionReportsItemDefinitions: vi.fn(async () => staticReportItems.medical_institution_reports),
    medicalInstitutionReportsGetAlertSettings: vi.fn(async () => settings),
    medicalInstitutionReportsUpdateAlertSettings: vi.fn(update),
    listStaffs: vi.fn(async () => [
      { id: id(31), name: '佐藤 美咲', cs_account: false },
      { id: id(32), name: '高橋 健太', cs_account: false },
    ]),
  };
  renderInRouter(() => <ReportAlertSettingsPanel id={id(1)} version={4} />, { api });
  return api;
}

describe('ReportAlertSettingsPanel', () => {
  it('shows the saved settings and saves them with the definition version', async () => {
    const api = renderPanel(async () => saved);
    expect(await screen.findByLabelText('アラートを有効にする')).toBeChecked();
    expect(screen.getByLabelText('条件1の値')).toHaveValue(0);
    await userEvent.clear(screen.getByLabelText('条件1の値'));
    await userEvent.type(screen.getByLabelText('条件1の値'), '2');
    await userEvent.click(screen.getByRole('button', { name: 'アラート設定を保存' }));
    await waitFor(() =>
      expect(api.medicalInstitutionReportsUpdateAlertSettings).toHaveBeenCalledWith({
        params: { id: id(1) },
        body: { ...saved, conditions: [{ item_key: 'referral_count', operator: 'lte', values: ['2'] }] },
        ifMatch: 4,
      }),
    );
  });

  it('says what an alert without conditions does (not the report filter’s 「すべての行を表示します」)', async () => {
    renderPanel(async () => saved, { enabled: true, conditions: [], notify_user_ids: [] });
    expect(
      await screen.findByText('条件はありません（レポートに行が1件でもあればアラート日が付きます）'),
    ).toBeInTheDocument();
    expect(screen.queryByText(/すべての行を表示します/)).not.toBeInTheDocument();
  });

  it('puts a 422 on the notified users and the condition values', async () => {
    renderPanel(async () => {
      throw new ApiError(422, '入力内容に誤りがあります', undefined, [
        { field: 'notify_user_ids.0', message: 'ユーザーが見つかりません' },
        { field: 'conditions.0.values', message: '数値を入力してください' },
      ]);
    });
    await userEvent.click(await screen.findByRole('button', { name: 'アラート設定を保存' }));
    expect(await screen.findByText('ユーザーが見つかりません')).toBeInTheDocument();
    expect(within(screen.getByTestId('filter-row')).getByText('数値を入力してください')).toBeInTheDocument();
  });
});
