import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { Email, EmailStats } from '@renkei/contracts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { EmailReportsPage } from './EmailReportsPage.tsx';

const id = '00000000-0000-4000-8000-000000000001';

const stats = (over: Partial<EmailStats>): EmailStats => ({
  destination_count: 3,
  invalid_destination_count: 0,
  delivered_count: 0,
  opened_count: 0,
  clicked_count: 0,
  delivered_rate: null,
  opened_rate: null,
  clicked_rate: null,
  in_doubt_count: 0,
  ...over,
});

/** The count and the rate of each of 配信, 開封 and クリック, as the report's figures read. */
async function figures(shown: EmailStats): Promise<(string | null)[]> {
  const api = {
    getEmail: vi.fn(async () => ({ id, title: 'お知らせ' }) as Email),
    getEmailStats: vi.fn(async () => shown),
    listEmailReports: vi.fn(async () => ({
      data: [],
      meta: { total_count: 0, page: 1, per_page: 50, total_pages: 0 },
    })),
    getEmailTimeline: vi.fn(async () => ({ sent_at: null, data: [] })),
  };
  const view = renderInRouter(() => <EmailReportsPage id={id} page={1} filter={undefined} onChange={vi.fn()} />, {
    api,
    paths: ['/emails'],
  });
  await screen.findByTestId('email-stat-配信');
  const texts = ['配信', '開封', 'クリック'].map((label) => screen.getByTestId(`email-stat-${label}`).textContent);
  view.unmount();
  return texts;
}

describe('email reports page', () => {
  it('shows the rates as the list does, and a dash for each rate with nothing to divide by', async () => {
    // The figures of EmailsPage.test.tsx: the list shows 100.0%, 33.3% and 0.0% for the first, 0.0% — — for the second.
    expect(
      await figures(
        stats({ delivered_count: 3, opened_count: 1, delivered_rate: 1, opened_rate: 0.333, clicked_rate: 0 }),
      ),
    ).toEqual(['3100.0%', '133.3%', '00.0%']);
    expect(await figures(stats({ delivered_rate: 0 }))).toEqual(['00.0%', '0—', '0—']);
    // Not sent yet: no rate at all, the delivered one included.
    expect(await figures(stats({}))).toEqual(['0—', '0—', '0—']);
  });
  it('names the attachment with a link to download it', async () => {
    const fileId = '00000000-0000-4000-8000-0000000000f1';
    const api = {
      getEmail: vi.fn(
        async () =>
          ({
            id,
            title: 'お知らせ',
            attachment_id: fileId,
            attachment_name: '研修会資料.pdf',
            attachment_size: 2 * 1024 * 1024,
            attachment_url: `/files/${fileId}?expires=1&signature=s`,
          }) as Email,
      ),
      getEmailStats: vi.fn(async () => stats({})),
      listEmailReports: vi.fn(async () => ({
        data: [],
        meta: { total_count: 0, page: 1, per_page: 50, total_pages: 0 },
      })),
      getEmailTimeline: vi.fn(async () => ({ sent_at: null, data: [] })),
    };
    renderInRouter(() => <EmailReportsPage id={id} page={1} filter={undefined} onChange={vi.fn()} />, {
      api,
      paths: ['/emails'],
    });
    const line = await screen.findByTestId('email-report-attachment');
    expect(line).toHaveTextContent('添付ファイル：研修会資料.pdf（2.0 MB）');
    expect(screen.getByRole('link', { name: '研修会資料.pdf' }).getAttribute('href')).toBe(
      `/files/${fileId}?expires=1&signature=s`,
    );
  });

  it('shows a stopped send with its reason and error, and resumes it', async () => {
    const stopped = {
      id,
      title: 'お知らせ',
      attachment_id: null,
      delivery_stopped: {
        reason: 'delivery_failed',
        error: 'Error: 421 4.3.2 Service not available',
        stopped_at: '2026-11-20T02:00:00.000Z',
      },
    } as Email;
    const api = {
      getEmail: vi.fn(async () => stopped),
      getEmailStats: vi.fn(async () => stats({ delivered_count: 1, delivered_rate: 0.333 })),
      listEmailReports: vi.fn(async () => ({
        data: [],
        meta: { total_count: 0, page: 1, per_page: 50, total_pages: 0 },
      })),
      getEmailTimeline: vi.fn(async () => ({ sent_at: null, data: [] })),
      resumeEmailSend: vi.fn(async () => ({ ...stopped, delivery_stopped: null })),
      copyEmail: vi.fn(),
    };
    renderInRouter(() => <EmailReportsPage id={id} page={1} filter={undefined} onChange={vi.fn()} />, {
      api,
      paths: ['/emails', '/emails/$id/edit'],
    });
    const alert = await screen.findByTestId('email-delivery-stopped');
    expect(alert).toHaveTextContent('このメールの送信は止まっています');
    expect(alert).toHaveTextContent('メールサーバーへの送信が繰り返し失敗したため');
    expect(alert).toHaveTextContent('停止日時：2026/11/20 11:00');
    expect(screen.getByTestId('email-delivery-stopped-error')).toHaveTextContent(
      'Error: 421 4.3.2 Service not available',
    );
    // Copying to attach again is offered only when the file is what is missing.
    expect(screen.queryByRole('button', { name: '複製して添付し直す' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: '送信を再開する' }));
    await waitFor(() => expect(api.resumeEmailSend).toHaveBeenCalledWith({ params: { id } }));
  });

  it('offers to copy and attach again when the attachment is what stopped the send', async () => {
    const api = {
      getEmail: vi.fn(
        async () =>
          ({
            id,
            title: 'お知らせ',
            attachment_id: null,
            delivery_stopped: {
              reason: 'attachment_missing',
              error: 'MissingAttachmentError: gone',
              stopped_at: '2026-11-20T02:00:00.000Z',
            },
          }) as Email,
      ),
      getEmailStats: vi.fn(async () => stats({})),
      listEmailReports: vi.fn(async () => ({
        data: [],
        meta: { total_count: 0, page: 1, per_page: 50, total_pages: 0 },
      })),
      getEmailTimeline: vi.fn(async () => ({ sent_at: null, data: [] })),
    };
    renderInRouter(() => <EmailReportsPage id={id} page={1} filter={undefined} onChange={vi.fn()} />, {
      api,
      paths: ['/emails', '/emails/$id/edit'],
    });
    const alert = await screen.findByTestId('email-delivery-stopped');
    expect(alert).toHaveTextContent('まだどの送信先にも送られていません');
    expect(screen.getByRole('button', { name: '複製して添付し直す' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '送信を再開する' })).toBeInTheDocument();
  });
});
