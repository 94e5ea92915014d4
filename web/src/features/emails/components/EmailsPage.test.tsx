import { screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import type { Email, EmailStats } from '@renkei/contracts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { EmailsPage } from './EmailsPage.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

const email = (n: number): Email => ({
  id: id(n),
  title: `お知らせ${n}`,
  status: 'sent',
  destination_count: 3,
  invalid_destination_count: 0,
  invalid_destinations: [],
  sender_name: '地域連携室',
  sender_email: 'renkei@example.jp',
  main_content: '<p>本文</p>',
  attachment_id: null,
  attachment_name: null,
  attachment_size: null,
  attachment_url: null,
  doctor_ids: [],
  sent_at: '2026-11-20T01:00:00.000Z',
  created_by: null,
  created_at: '2026-11-19T01:00:00.000Z',
  updated_at: '2026-11-20T01:00:00.000Z',
  version: 2,
  delivery_stopped: null,
});

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

describe('emails page', () => {
  it("shows a sent email's rates as its report does: a dash where there is nothing to divide by", async () => {
    // The API's rates, to three decimals (EmailReportsPage.test.tsx shows the same figures).
    const byId: Record<string, EmailStats> = {
      [id(1)]: stats({ delivered_count: 3, opened_count: 1, delivered_rate: 1, opened_rate: 0.333, clicked_rate: 0 }),
      [id(2)]: stats({ delivered_rate: 0 }),
    };
    const emails = [email(1), email(2)];
    const api = {
      listEmails: vi.fn(async ({ query }: { query: { page: number; per_page: number } }) => ({
        data: emails,
        meta: { total_count: emails.length, page: query.page, per_page: query.per_page, total_pages: 1 },
      })),
      getEmailStats: vi.fn(async ({ params }: { params: { id: string } }) => byId[params.id]),
    };
    renderInRouter(() => <EmailsPage params={{ status: 'sent', page: 1, per_page: 20 }} onParamsChange={vi.fn()} />, {
      api,
      paths: ['/emails/new', '/emails/$id/edit', '/emails/$id/reports'],
    });
    const rows = await screen.findAllByTestId('email-row');
    expect(await within(rows[0]!).findByText(/^配信/)).toHaveTextContent(
      '配信 3件（100.0%）・開封 33.3%・クリック 0.0%',
    );
    expect(await within(rows[1]!).findByText(/^配信/)).toHaveTextContent('配信 0件（0.0%）・開封 —・クリック —');
  });

  it('marks a stopped send in its row and says where to act on it', async () => {
    const stopped: Email = {
      ...email(3),
      delivery_stopped: { reason: 'delivery_failed', error: 'Error: 421', stopped_at: '2026-11-20T02:00:00.000Z' },
    };
    const emails = [email(1), stopped];
    const api = {
      listEmails: vi.fn(async () => ({
        data: emails,
        meta: { total_count: 2, page: 1, per_page: 20, total_pages: 1 },
      })),
      getEmailStats: vi.fn(async () => stats({})),
    };
    renderInRouter(() => <EmailsPage params={{ status: 'sent', page: 1, per_page: 20 }} onParamsChange={vi.fn()} />, {
      api,
      paths: ['/emails/new', '/emails/$id/edit', '/emails/$id/reports'],
    });
    const rows = await screen.findAllByTestId('email-row');
    expect(within(rows[0]!).queryByTestId('email-row-stopped')).toBeNull();
    expect(within(rows[1]!).getByTestId('email-row-stopped')).toHaveTextContent(
      '送信停止中メールサーバーへの送信に失敗したため送信を止めています。「レポート」で詳しい内容を確認し、送信を再開できます。',
    );
  });
});
