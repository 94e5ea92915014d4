import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Profile, ProfileInput } from '@renkei/contracts';
import { describe, expect, it, vi } from 'vitest';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { ApiError } from '../../../api/api-errors.ts';
import { ProfilePage } from './ProfilePage.tsx';

const profile: Profile = {
  username: '山田 花子',
  notification_settings: {
    enabled_notification: true,
    enabled_communication_reactions_summary: true,
    enabled_alerts_summary: false,
    enabled_medical_institution_report_alert: false,
  },
  own_department_id: null,
};

const departments = [
  { id: '6f1c0d2e-0000-4000-8000-000000000001', name: '内科', department_id: null, order: 0 },
  { id: '6f1c0d2e-0000-4000-8000-000000000002', name: '整形外科', department_id: null, order: 1 },
];

const setting = (key: string) => document.querySelector<HTMLInputElement>(`input[data-setting=${key}]`)!;

function renderPage(
  update = vi.fn(async ({ body }: { body: ProfileInput }): Promise<Profile> => ({
    ...body,
    own_department_id: body.own_department_id ?? null,
  })),
) {
  const api = {
    getProfile: vi.fn(async () => profile),
    updateProfile: update,
    listOwnDepartments: vi.fn(async () => departments),
  };
  const { router } = renderInRouter(() => <ProfilePage />, { api, paths: ['/tags'] });
  return Object.assign(update, { router });
}

describe('profile notification settings', { timeout: 30_000 }, () => {
  it('says what each mail is, and switching all notifications off greys the others out and saves', async () => {
    const update = renderPage();
    expect(await screen.findByText(/翌朝7時ごろに1通のメールにまとめて/)).toBeInTheDocument();
    expect(screen.getByText(/毎朝7時ごろに前日朝からの分をまとめて1通のメールで/)).toBeInTheDocument();
    expect(screen.getByText(/通知先に自分が設定された医療機関レポートのアラートが出たとき/)).toBeInTheDocument();
    expect(screen.queryByText(/提供開始後/)).not.toBeInTheDocument();
    const summary = setting('enabled_communication_reactions_summary');
    expect(summary).toBeEnabled();
    await userEvent.click(setting('enabled_notification'));
    expect(summary).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(update).toHaveBeenCalledTimes(1));
    expect(update.mock.calls[0]![0].body.notification_settings).toEqual({
      ...profile.notification_settings,
      enabled_notification: false,
    });
  });
});

describe('profile own department', { timeout: 30_000 }, () => {
  it("saves the chosen department of the tenant's own list", async () => {
    const update = renderPage();
    await userEvent.click(await screen.findByLabelText('所属診療科', { selector: 'input' }));
    await userEvent.click(await screen.findByRole('option', { name: '整形外科', hidden: true }));
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(update).toHaveBeenCalledTimes(1));
    expect(update.mock.calls[0]![0].body.own_department_id).toBe(departments[1]!.id);
  });

  it("shows the server's refusal on the department field", async () => {
    const update = vi.fn(async (_: { body: ProfileInput }): Promise<Profile> => {
      throw new ApiError(422, 'Unprocessable', undefined, [
        { field: 'own_department_id', message: '所属診療科を自院の診療科から選んでください' },
      ]);
    });
    renderPage(update);
    await userEvent.click(await screen.findByRole('button', { name: '保存' }));
    expect(await screen.findByText('所属診療科を自院の診療科から選んでください')).toBeInTheDocument();
    expect(update).toHaveBeenCalledTimes(1);
  });
});

describe('profile changes not saved', { timeout: 30_000 }, () => {
  it('asks before leaving with a change not saved, and leaves without asking once it is saved', async () => {
    const update = renderPage();
    const { router } = update;
    await userEvent.type(await screen.findByRole('textbox', { name: /氏名/ }), '（旧姓 佐藤）');
    router.history.push('/app/tags');
    const dialog = await screen.findByRole('dialog', { name: '保存していない変更があります' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'このページに戻る' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(router.state.location.pathname).toBe('/');
    expect(screen.getByRole('textbox', { name: /氏名/ })).toHaveValue('山田 花子（旧姓 佐藤）');

    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(update).toHaveBeenCalledTimes(1));
    router.history.push('/app/tags');
    await waitFor(() => expect(router.state.location.pathname).toBe('/tags'));
    expect(screen.queryByRole('dialog', { name: '保存していない変更があります' })).not.toBeInTheDocument();
  });
});
