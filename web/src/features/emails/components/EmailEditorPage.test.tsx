import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { EmailEditorPage } from './EmailEditorPage.tsx';

const noDoctors = { data: [], meta: { total_count: 0, page: 1, per_page: 50, total_pages: 0 } };

describe('EmailEditorPage', () => {
  it('says why the doctor picker is empty instead of opening nothing', async () => {
    const api = { listEmailDestinations: vi.fn(async () => noDoctors) };
    renderInRouter(() => <EmailEditorPage email={null} restrictedSenders={null} userEmail="owner@example.jp" />, {
      api,
      paths: ['/emails', '/emails/$id/edit'],
    });
    await userEvent.click(await screen.findByRole('combobox', { name: '医師から選ぶ' }));
    expect(await screen.findByText(/メールアドレスが登録された医師がいません/)).toBeInTheDocument();
    await userEvent.type(screen.getByRole('combobox', { name: '医師から選ぶ' }), '山田');
    expect(await screen.findByText('該当する医師が見つかりません')).toBeInTheDocument();
  });
});
