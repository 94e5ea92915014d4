import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { TenantSetting, TenantSettingInput } from '@renkei/contracts';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import type { AppServices } from '../../../app/services-context.tsx';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { TenantSettingPage } from './TenantSettingPage.tsx';

const setting: TenantSetting = {
  name: 'さくら総合病院',
  plan: 'standard202211',
  features: ['tags'],
  features_off: [],
  medical_institution: null,
  group_medical_institutions: [],
  is_group: false,
  enabled_phase: false,
  max_account_count: null,
  max_tag_count: null,
  email_sender_allowed_addresses: [],
  ip_allow_list: [],
  client_ip: '198.51.100.7',
  prefecture: '東京都',
  latitude: null,
  longitude: null,
  logo: null,
};
const exclusion =
  '現在の接続元IPアドレス（198.51.100.7）が含まれていません。このまま保存すると、このアドレスからはアクセスできなくなります。';

type History = Awaited<ReturnType<AppServices['api']['listTenantSettingHistories']>>['data'];

function renderPage(history: History = []) {
  const update = vi.fn(async ({ body }: { body: TenantSettingInput }) => {
    const badSender = body.email_sender_allowed_addresses.findIndex((a) => !a.includes('@'));
    if (badSender >= 0) {
      throw new ApiError(422, '入力内容に誤りがあります。', undefined, [
        { field: `email_sender_allowed_addresses.${badSender}`, message: 'メールアドレスの形式が正しくありません' },
      ]);
    }
    if (!body.confirm_ip_exclusion && !body.ip_allow_list.includes('198.51.100.7/32')) {
      throw new ApiError(422, '入力内容に誤りがあります。', 'IP_SELF_EXCLUDED', [
        { field: 'ip_allow_list', message: exclusion },
      ]);
    }
    return { ...setting, ip_allow_list: body.ip_allow_list };
  });
  const updateLogo = vi.fn(async ({ body }: { body: { data: string } }) => ({
    ...setting,
    logo: `/tenant_logo?v=${body.data.length}`,
  }));
  const api = {
    getTenantSetting: vi.fn(async () => setting),
    updateTenantSetting: update,
    updateTenantLogo: updateLogo,
    listTenantSettingHistories: vi.fn(async () => ({
      data: history,
      meta: { total_count: history.length, page: 1, per_page: 20, total_pages: history.length ? 1 : 0 },
    })),
  };
  const { router } = renderInRouter(() => <TenantSettingPage />, { api, paths: ['/tags'] });
  return { update, updateLogo, router };
}

describe('tenant settings', { timeout: 30_000 }, () => {
  it('names the features in Japanese, on the checkboxes and in the change history', async () => {
    renderPage([
      {
        changed_at: '2026-11-24T01:00:00.000Z',
        changed_by: 'CS 担当',
        changes: [{ field: 'feature_overrides', before: '', after: 'emails, tags' }],
      },
    ]);
    expect(await screen.findByRole('checkbox', { name: 'タグ管理' })).toBeInTheDocument();
    expect(screen.getByRole('checkbox', { name: 'HTMLメール' })).toBeInTheDocument();
    expect(screen.queryByRole('checkbox', { name: 'tags' })).not.toBeInTheDocument();
    const history = await screen.findByTestId('tenant-setting-history');
    expect(history).toHaveTextContent('無効にする機能');
    expect(history).toHaveTextContent('HTMLメール、タグ管理');
  });

  it('asks before saving an allow-list without the current address, naming it, and saves once confirmed', async () => {
    const { update } = renderPage();
    await userEvent.click(await screen.findByLabelText(/許可するIPアドレス/));
    await userEvent.paste('203.0.113.0/24');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText(exclusion)).toBeInTheDocument();
    expect(update).toHaveBeenCalledTimes(1);
    await userEvent.click(screen.getByRole('button', { name: 'このまま保存する' }));
    await waitFor(() => expect(update).toHaveBeenCalledTimes(2));
    expect(update.mock.calls[1]![0].body).toMatchObject({
      ip_allow_list: ['203.0.113.0/24'],
      confirm_ip_exclusion: true,
    });
  });

  it('saves the prefecture and the map centre with the form', async () => {
    const { update } = renderPage();
    await userEvent.type(await screen.findByLabelText('地図の中心（緯度）'), '43.06');
    await userEvent.type(screen.getByLabelText('地図の中心（経度）'), '141.35');
    await userEvent.click(screen.getByLabelText(/許可するIPアドレス/));
    await userEvent.paste('198.51.100.7/32');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(update).toHaveBeenCalledTimes(1));
    expect(update.mock.calls[0]![0].body).toMatchObject({ prefecture: '東京都', latitude: 43.06, longitude: 141.35 });
  });

  it('uploads a chosen logo image in base64 and refuses another file type before any call', async () => {
    const { updateLogo } = renderPage();
    const input = (await screen.findByRole('button', { name: 'ロゴを登録' })).parentElement!.querySelector(
      'input[type=file]',
    )!;
    await userEvent.upload(input as HTMLInputElement, new File(['hello'], 'logo.svg', { type: 'image/svg+xml' }), {
      applyAccept: false,
    });
    expect(await screen.findByRole('alert')).toHaveTextContent('PNG・JPEG・GIF・WebP');
    expect(updateLogo).not.toHaveBeenCalled();
    await userEvent.upload(input as HTMLInputElement, new File(['png!'], 'logo.png', { type: 'image/png' }));
    await waitFor(() => expect(updateLogo).toHaveBeenCalledTimes(1));
    expect(updateLogo.mock.calls[0]![0].body).toEqual({ data: btoa('png!') });
  });

  it('names the line of a list the server refuses, among the others', async () => {
    const { update } = renderPage();
    await userEvent.click(await screen.findByLabelText(/送信元として許可するメールアドレス/));
    await userEvent.paste('renkei@example.jp\n\nrenkei.example.jp\ninfo@example.jp');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(
      await screen.findByText('「renkei.example.jp」: メールアドレスの形式が正しくありません'),
    ).toBeInTheDocument();
    expect(update.mock.calls[0]![0].body.email_sender_allowed_addresses).toEqual([
      'renkei@example.jp',
      'renkei.example.jp',
      'info@example.jp',
    ]);
  });

  it('asks before leaving with a change not saved, and leaves without asking once it is saved', async () => {
    const { update, router } = renderPage();
    await userEvent.type(await screen.findByLabelText('地図の中心（緯度）'), '43.06');
    router.history.push('/app/tags');
    const dialog = await screen.findByRole('dialog', { name: '保存していない変更があります' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'このページに戻る' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(router.state.location.pathname).toBe('/');

    await userEvent.click(screen.getByLabelText(/許可するIPアドレス/));
    await userEvent.paste('198.51.100.7/32');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(update).toHaveBeenCalledTimes(1));
    router.history.push('/app/tags');
    await waitFor(() => expect(router.state.location.pathname).toBe('/tags'));
    expect(screen.queryByRole('dialog', { name: '保存していない変更があります' })).not.toBeInTheDocument();
  });
});
