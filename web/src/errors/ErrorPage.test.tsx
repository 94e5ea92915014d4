import { afterEach, describe, expect, it, vi } from 'vitest';
import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { ServicesProvider } from '../app/services-context.tsx';
import { testServices } from '../test/render-app.tsx';
import { ErrorPage } from './ErrorPage.tsx';

const assign = vi.fn();
const original = window.location;

function renderPage(status: number, subCode?: string, signedIn = false) {
  const services = testServices();
  if (signedIn) services.auth.activeAccount = vi.fn(() => ({ homeAccountId: 'a' }) as never);
  Object.defineProperty(window, 'location', { configurable: true, value: { ...original, assign } });
  render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <ErrorPage status={status} subCode={subCode} />
      </ServicesProvider>
    </MantineProvider>,
  );
  return services;
}

afterEach(() => {
  Object.defineProperty(window, 'location', { configurable: true, value: original });
  assign.mockReset();
});

describe('error page', () => {
  it('shows status, summary, description and the top button', () => {
    renderPage(404);
    expect(screen.getByText('404')).toBeInTheDocument();
    expect(screen.getByText('ページが見つかりません')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'TOPページに戻る' })).toBeInTheDocument();
  });

  it('shows a 400 as 500', () => {
    renderPage(400);
    expect(screen.getByText('500')).toBeInTheDocument();
    expect(screen.getByText('一時的なエラーが発生しました')).toBeInTheDocument();
  });

  it('on 403 shows the IP message and signs out from its button', async () => {
    const services = renderPage(403, 'IP_NOT_ALLOWED');
    expect(screen.getByText('指定されたページは表示できません')).toBeInTheDocument();
    expect(screen.getByText(/許可されたIPアドレス以外からのアクセス/)).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'TOPページに戻る' }));
    expect(services.logout).toHaveBeenCalledOnce();
    expect(assign).not.toHaveBeenCalled();
  });

  it('on 401 signs out only when an account is active, otherwise goes to the top', async () => {
    const signedIn = renderPage(401, undefined, true);
    await userEvent.click(screen.getByRole('button', { name: 'TOPページに戻る' }));
    expect(signedIn.logout).toHaveBeenCalledOnce();
  });

  it('on 404 goes straight to the top page', async () => {
    const services = renderPage(404);
    await userEvent.click(screen.getByRole('button', { name: 'TOPページに戻る' }));
    expect(services.logout).not.toHaveBeenCalled();
    expect(assign).toHaveBeenCalledWith('/app/');
  });
});
