import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { ReferralSettingsSection } from './ReferralSettingsSection.tsx';

const surgery = '00000000-0000-4000-8000-000000000001';
const focus = '00000000-0000-4000-8000-0000000000a1';
const setting = {
  id: '00000000-0000-4000-8000-0000000000ff',
  rest_segment_label: 'その他',
  excluded_own_department_ids: [],
  segments: [
    { id: focus, label: '重点', priority: 1, referral_count_more_equal: 10, referral_admission_rate_more_equal: 30 },
  ],
  updated_at: null,
  version: 3,
};

function renderSection(api: Record<string, unknown>) {
  const full = {
    listOwnDepartments: vi.fn(async () => [{ id: surgery, name: '外科', department_id: null }]),
    segmentationSetting: vi.fn(async () => setting),
    referralAdmissionPeriod: vi.fn(async () => ({ max_referral_hospital_admission_period: 90, updated_at: null })),
    updateSegmentationSetting: vi.fn(async ({ body }: { body: object }) => ({ ...setting, ...body })),
    updateReferralAdmissionPeriod: vi.fn(async ({ body }: { body: object }) => ({ ...body, updated_at: null })),
    ...api,
  };
  const { router } = renderInRouter(() => <ReferralSettingsSection />, { api: full, paths: ['/tags'] });
  return Object.assign(full, { router });
}

// Typing into several inputs takes seconds on a loaded machine.
describe('referral settings', { timeout: 30_000 }, () => {
  it('saves the admission period in days', async () => {
    const api = renderSection({});
    const input = await screen.findByLabelText('紹介後の入院とみなす期間（日）');
    await waitFor(() => expect(input).toHaveValue('90'));
    await userEvent.clear(input);
    await userEvent.type(input, '60');
    await userEvent.click(within(screen.getByTestId('admission-period-form')).getByRole('button', { name: '保存' }));
    await waitFor(() =>
      expect(api.updateReferralAdmissionPeriod).toHaveBeenCalledWith({
        body: { max_referral_hospital_admission_period: 60 },
      }),
    );
  });

  it('keeps what the owner is typing when the reload after a save arrives late', async () => {
    let answerReload: (v: object) => void = () => undefined;
    const api = renderSection({
      referralAdmissionPeriod: vi
        .fn()
        .mockResolvedValueOnce({ max_referral_hospital_admission_period: 90, updated_at: null })
        .mockReturnValue(new Promise((resolve) => (answerReload = resolve))),
    });
    const input = await screen.findByLabelText('紹介後の入院とみなす期間（日）');
    await waitFor(() => expect(input).toHaveValue('90'));
    await userEvent.clear(input);
    await userEvent.type(input, '60');
    await userEvent.click(within(screen.getByTestId('admission-period-form')).getByRole('button', { name: '保存' }));
    await waitFor(() => expect(api.updateReferralAdmissionPeriod).toHaveBeenCalled());
    await waitFor(() => expect(api.referralAdmissionPeriod).toHaveBeenCalledTimes(2));
    await userEvent.clear(input);
    await userEvent.type(input, '45');
    answerReload({ max_referral_hospital_admission_period: 60, updated_at: null });
    await new Promise((r) => setTimeout(r, 50));
    expect(input).toHaveValue('45');
  });

  it('says a period out of range instead of changing it, and sends nothing', async () => {
    const api = renderSection({});
    const input = await screen.findByLabelText('紹介後の入院とみなす期間（日）');
    await waitFor(() => expect(input).toHaveValue('90'));
    const save = within(screen.getByTestId('admission-period-form')).getByRole('button', { name: '保存' });
    await userEvent.clear(input);
    await userEvent.type(input, '500');
    await userEvent.click(save);
    expect(await screen.findByText('入院期間は365日以下で入力してください')).toBeInTheDocument();
    expect(input).toHaveValue('500');
    await userEvent.clear(input);
    await userEvent.type(input, '0');
    await userEvent.click(save);
    expect(await screen.findByText('入院期間は1日以上で入力してください')).toBeInTheDocument();
    expect(api.updateReferralAdmissionPeriod).not.toHaveBeenCalled();
  });

  it('sends a negative count as typed, for the server to refuse on its field, not as 0', async () => {
    const api = renderSection({
      updateSegmentationSetting: vi.fn(async () => {
        throw new ApiError(422, '入力内容に誤りがあります。', undefined, [
          { field: 'segments.0.referral_count_more_equal', message: '紹介件数は0以上で入力してください' },
        ]);
      }),
    });
    await waitFor(() => expect(screen.getAllByTestId('segment-row')).toHaveLength(1));
    const count = screen.getByLabelText('紹介件数 1');
    await userEvent.clear(count);
    await userEvent.type(count, '-5');
    await userEvent.click(screen.getByRole('button', { name: 'セグメント設定を保存' }));
    expect(await screen.findByText('紹介件数は0以上で入力してください')).toBeInTheDocument();
    const sent = api.updateSegmentationSetting.mock.calls[0]![0] as {
      body: { segments: { referral_count_more_equal: number | null }[] };
    };
    expect(sent.body.segments[0]!.referral_count_more_equal).toBe(-5);
    expect(count).toHaveValue('-5');
  });

  it('adds a segment below the saved one and sends the rows in order as priorities, keeping ids', async () => {
    const api = renderSection({});
    await waitFor(() => expect(screen.getAllByTestId('segment-row')).toHaveLength(1));
    await userEvent.click(screen.getByRole('button', { name: 'セグメントを追加' }));
    await userEvent.type(screen.getByLabelText('セグメント名 2'), '育成');
    await userEvent.type(screen.getByLabelText('紹介件数 2'), '1');
    await userEvent.click(screen.getByRole('button', { name: 'セグメント設定を保存' }));
    await waitFor(() => expect(api.updateSegmentationSetting).toHaveBeenCalled());
    expect(api.updateSegmentationSetting.mock.calls[0]![0]).toEqual({
      // The version the card was loaded at: another owner's later save is a 409, not overwritten.
      ifMatch: '"3"',
      body: {
        rest_segment_label: 'その他',
        excluded_own_department_ids: [],
        segments: [
          {
            id: focus,
            label: '重点',
            priority: 1,
            referral_count_more_equal: 10,
            referral_admission_rate_more_equal: 30,
          },
          {
            id: null,
            label: '育成',
            priority: 2,
            referral_count_more_equal: 1,
            referral_admission_rate_more_equal: null,
          },
        ],
      },
    });
  });

  it('leaves out an excluded department deleted since the setting was saved, and keeps the others', async () => {
    const deleted = '00000000-0000-4000-8000-0000000000dd';
    const api = renderSection({
      segmentationSetting: vi.fn(async () => ({ ...setting, excluded_own_department_ids: [deleted, surgery] })),
    });
    await waitFor(() => expect(screen.getAllByTestId('segment-row')).toHaveLength(1));
    // The kept one shows as a pill; the deleted one is not named by its id.
    await waitFor(() => expect(document.querySelector('.mantine-Pill-label')).toHaveTextContent('外科'));
    expect(screen.queryByText(deleted)).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'セグメント設定を保存' }));
    await waitFor(() => expect(api.updateSegmentationSetting).toHaveBeenCalled());
    expect(api.updateSegmentationSetting.mock.calls[0]![0]).toMatchObject({
      body: { excluded_own_department_ids: [surgery] },
    });
  });

  it('asks for a segment name before sending, and shows the server’s messages on their fields', async () => {
    const api = renderSection({
      updateSegmentationSetting: vi.fn(async () => {
        throw new ApiError(422, '入力内容に誤りがあります', undefined, [
          { field: 'segments.0.referral_admission_rate_more_equal', message: '入院率は100以下で入力してください' },
        ]);
      }),
    });
    await waitFor(() => expect(screen.getAllByTestId('segment-row')).toHaveLength(1));
    await userEvent.click(screen.getByRole('button', { name: 'セグメントを追加' }));
    await userEvent.click(screen.getByRole('button', { name: 'セグメント設定を保存' }));
    expect(await screen.findByText('セグメント名を入力してください')).toBeInTheDocument();
    expect(api.updateSegmentationSetting).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: '2行目のセグメントを削除' }));
    await userEvent.click(screen.getByRole('button', { name: 'セグメント設定を保存' }));
    await waitFor(() => expect(api.updateSegmentationSetting).toHaveBeenCalled());
    expect(await screen.findByText('入院率は100以下で入力してください')).toBeInTheDocument();
  });

  it('asks for a condition of a segment that has none (it would take every institution), and sends nothing', async () => {
    const api = renderSection({});
    await waitFor(() => expect(screen.getAllByTestId('segment-row')).toHaveLength(1));
    await userEvent.click(screen.getByRole('button', { name: 'セグメントを追加' }));
    await userEvent.type(screen.getByLabelText('セグメント名 2'), '全部');
    await userEvent.click(screen.getByRole('button', { name: 'セグメント設定を保存' }));
    expect(
      await screen.findByText(
        '紹介件数か入院率のどちらかを入力してください（条件のないセグメントにはすべての医療機関が入ります）',
      ),
    ).toBeInTheDocument();
    expect(api.updateSegmentationSetting).not.toHaveBeenCalled();
    // A rate alone is a condition.
    await userEvent.type(screen.getByLabelText('入院率 2'), '50');
    await userEvent.click(screen.getByRole('button', { name: 'セグメント設定を保存' }));
    await waitFor(() => expect(api.updateSegmentationSetting).toHaveBeenCalled());
  });

  it('names the segment each row’s buttons act on, for a screen reader', async () => {
    renderSection({});
    await waitFor(() => expect(screen.getAllByTestId('segment-row')).toHaveLength(1));
    await userEvent.click(screen.getByRole('button', { name: 'セグメントを追加' }));
    expect(screen.getByRole('button', { name: 'セグメント「重点」を下へ' })).toBeEnabled();
    expect(screen.getByRole('button', { name: 'セグメント「重点」を上へ' })).toBeDisabled();
    expect(screen.getByRole('button', { name: '2行目のセグメントを上へ' })).toBeEnabled();
    await userEvent.type(screen.getByLabelText('セグメント名 2'), '育成');
    await userEvent.click(screen.getByRole('button', { name: 'セグメント「育成」を削除' }));
    expect(screen.getAllByTestId('segment-row')).toHaveLength(1);
    expect(screen.queryByRole('button', { name: '削除' })).toBeNull();
  });

  it('says in Japanese that another owner saved first (409) and shows their setting', async () => {
    let saved = setting;
    const api = renderSection({
      segmentationSetting: vi.fn(async () => saved),
      updateSegmentationSetting: vi.fn(async () => {
        saved = { ...setting, rest_segment_label: '一般', version: 4 };
        throw new ApiError(409, '他の操作と競合しました');
      }),
    });
    await waitFor(() => expect(screen.getAllByTestId('segment-row')).toHaveLength(1));
    await userEvent.click(screen.getByRole('button', { name: 'セグメント設定を保存' }));
    expect(await screen.findByTestId('segmentation-conflict')).toHaveTextContent(
      'ほかのオーナーが先にセグメント設定を保存したため、保存できませんでした。',
    );
    await waitFor(() => expect(screen.getByLabelText('どのセグメントにも当てはまらない医療機関')).toHaveValue('一般'));
    expect(api.updateSegmentationSetting).toHaveBeenCalledWith(expect.objectContaining({ ifMatch: '"3"' }));
  });

  it('asks before leaving with a segment changed and not saved, and leaves without asking once saved', async () => {
    const api = renderSection({});
    const name = await screen.findByDisplayValue('重点');
    await userEvent.type(name, '連携先');
    api.router.history.push('/app/tags');
    const dialog = await screen.findByRole('dialog', { name: '保存していない変更があります' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'このページに戻る' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.router.state.location.pathname).toBe('/');

    await userEvent.click(screen.getByRole('button', { name: 'セグメント設定を保存' }));
    await waitFor(() => expect(api.updateSegmentationSetting).toHaveBeenCalledTimes(1));
    api.router.history.push('/app/tags');
    await waitFor(() => expect(api.router.state.location.pathname).toBe('/tags'));
  });

  it('leaves without asking when nothing was changed', async () => {
    const api = renderSection({});
    await screen.findByDisplayValue('重点');
    api.router.history.push('/app/tags');
    await waitFor(() => expect(api.router.state.location.pathname).toBe('/tags'));
  });
});
