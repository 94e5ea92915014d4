import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Profile, ProfileInput } from '@renkei/contracts';
import { Suspense } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { ProfilePage } from './ProfilePage.tsx';

const profile: Profile = {
  username: '山田 花子',
  notification_settings: {
    enabled_notification: true,
    enabled_communication_reactions_summary: true,
    enabled_alerts_summary: false,
    enabled_medical_institution_report_alert: false,
  },
};

const setting = (key: string) => document.querySelector<HTMLInputElement>(`input[data-setting=${key}]`)!;

function renderPage() {
  const update = vi.fn(async ({ body }: { body: ProfileInput }) => body);
  const api = { getProfile: vi.fn(async () => profile), updateProfile: update };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <QueryClientProvider client={client}>
          <Suspense fallback={null}>
            <ProfilePage />
          </Suspense>
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
  return update;
}

describe('profile notification settings', { timeout: 30_000 }, () => {
  it('says what each mail is, and switching all notifications off greys the others out and saves', async () => {
    const update = renderPage();
    expect(await screen.findByText(/翌朝7時ごろに1通のメールにまとめて/)).toBeInTheDocument();
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
