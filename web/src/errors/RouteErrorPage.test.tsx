import { afterEach, describe, expect, it, vi } from 'vitest';
import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ErrorComponentProps } from '@tanstack/react-router';
import { ServicesProvider } from '../app/services-context.tsx';
import { testServices } from '../test/render-app.tsx';
import { ApiError, networkSubCode } from '../api/api-errors.ts';
import { RouteErrorPage, isChunkLoadError } from './RouteErrorPage.tsx';
import { reportError } from './error-reporting.ts';

vi.mock('./error-reporting.ts', () => ({ reportError: vi.fn() }));

const reload = vi.fn();
const original = window.location;

function renderFor(error: unknown) {
  Object.defineProperty(window, 'location', { configurable: true, value: { ...original, reload } });
  render(
    <MantineProvider>
      <ServicesProvider value={testServices()}>
        <RouteErrorPage {...({ error, reset: () => {} } as unknown as ErrorComponentProps)} />
      </ServicesProvider>
    </MantineProvider>,
  );
}

afterEach(() => {
  Object.defineProperty(window, 'location', { configurable: true, value: original });
  vi.mocked(reportError).mockReset();
  reload.mockReset();
});

describe('the page of a route that failed', () => {
  it('says a screen whose script could not be fetched is a network problem, offers a reload and reports nothing', async () => {
    renderFor(new TypeError('Failed to fetch dynamically imported module: https://x/app/assets/tags-D1.js'));
    expect(screen.getByText('通信できませんでした')).toBeInTheDocument();
    expect(screen.getByText(/電波の届く場所で、もう一度お試しください/)).toBeInTheDocument();
    expect(screen.queryByText(/管理者に通知されました/)).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: '再読み込み' }));
    expect(reload).toHaveBeenCalledTimes(1);
    expect(reportError).not.toHaveBeenCalled();
  });

  it('says the same of data that could not be fetched', () => {
    renderFor(new ApiError(500, '一時的なエラーが発生しました。', networkSubCode));
    expect(screen.getByText('通信できませんでした')).toBeInTheDocument();
    expect(reportError).not.toHaveBeenCalled();
  });

  it('still reports a server error and says the administrator knows', () => {
    const error = new ApiError(500, '一時的なエラーが発生しました。');
    renderFor(error);
    expect(screen.getByText('一時的なエラーが発生しました')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'TOPページに戻る' })).toBeInTheDocument();
    expect(reportError).toHaveBeenCalledWith(error);
  });

  it('knows the chunk failures of Chrome, Safari and Firefox, and nothing else', () => {
    expect(isChunkLoadError(new TypeError('Failed to fetch dynamically imported module: https://x/a.js'))).toBe(true);
    expect(isChunkLoadError(new TypeError('Importing a module script failed.'))).toBe(true);
    expect(isChunkLoadError(new TypeError('error loading dynamically imported module: https://x/a.js'))).toBe(true);
    expect(isChunkLoadError(new TypeError("Cannot read properties of undefined (reading 'x')"))).toBe(false);
    expect(isChunkLoadError('dynamically imported module')).toBe(false);
  });
});
