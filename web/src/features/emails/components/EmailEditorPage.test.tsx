import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { EmailEditorPage } from './EmailEditorPage.tsx';

const noDoctors = { data: [], meta: { total_count: 0, page: 1, per_page: 50, total_pages: 0 } };

afterEach(() => localStorage.clear());

describe('EmailEditorPage', () => {
  it('still shows, after a reload, that the saved draft has its recipients file, and its name', async () => {
    const saved = { ...draft, destination_count: 3, version: 1 };
    const api = {
      listEmailDestinations: vi.fn(async () => noDoctors),
      updateEmail: vi.fn(async () => saved),
    };
    const first = renderInRouter(
      () => <EmailEditorPage email={draft} restrictedSenders={null} userEmail="owner@example.jp" />,
      { api, paths: ['/emails', '/emails/$id/edit'] },
    );
    await screen.findByRole('textbox', { name: '件名' });
    const csv = new File(['メールアドレス\r\na@example.jp\r\n'], '紹介元リスト.csv', { type: 'text/csv' });
    await userEvent.upload(document.querySelector<HTMLInputElement>('input[type=file][accept=".csv,text/csv"]')!, csv);
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByTestId('email-saved-recipients-file')).toHaveTextContent(
      '保存済みの送信先ファイル: 紹介元リスト.csv',
    );
    first.unmount();

    // The reloaded page has only what the API answers: the draft with its counts, no file name.
    renderInRouter(() => <EmailEditorPage email={saved} restrictedSenders={null} userEmail="owner@example.jp" />, {
      api,
      paths: ['/emails', '/emails/$id/edit'],
    });
    expect(await screen.findByTestId('email-saved-recipients-file')).toHaveTextContent(
      '保存済みの送信先ファイル: 紹介元リスト.csv',
    );
    localStorage.clear();
  });

  it('says a saved draft has a recipients file even when this browser did not save it', async () => {
    const api = { listEmailDestinations: vi.fn(async () => noDoctors) };
    renderInRouter(
      () => (
        <EmailEditorPage
          email={{ ...draft, destination_count: 40, invalid_destination_count: 1 }}
          restrictedSenders={null}
          userEmail="owner@example.jp"
        />
      ),
      { api, paths: ['/emails', '/emails/$id/edit'] },
    );
    expect(await screen.findByTestId('email-saved-recipients-file')).toHaveTextContent('送信先ファイルは保存済みです');
    expect(screen.getByText('保存済みのファイルを使用中')).toBeInTheDocument();
  });

  it('claims no recipients file for a draft sent to chosen doctors only', async () => {
    const api = { listEmailDestinations: vi.fn(async () => noDoctors) };
    renderInRouter(
      () => (
        <EmailEditorPage
          email={{ ...draft, destination_count: 1, doctor_ids: ['00000000-0000-4000-8000-0000000000d1'] }}
          restrictedSenders={null}
          userEmail="owner@example.jp"
        />
      ),
      { api, paths: ['/emails', '/emails/$id/edit'] },
    );
    await screen.findByTestId('email-destination-counts');
    expect(screen.queryByTestId('email-saved-recipients-file')).not.toBeInTheDocument();
  });

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

  it('lists the rows of the recipients file without a valid address, by row', async () => {
    const email = {
      id: '00000000-0000-4000-8000-000000000001',
      title: '研修会のご案内',
      status: 'unsent' as const,
      destination_count: 12,
      invalid_destination_count: 2,
      invalid_destinations: [
        { row_number: 3, value: 'yamada@' },
        { row_number: 7, value: '' },
      ],
      sender_name: '地域連携室',
      sender_email: 'owner@example.jp',
      main_content: '<p>ご案内</p>',
      attachment_id: null,
      attachment_name: null,
      attachment_size: null,
      attachment_url: null,
      doctor_ids: [],
      sent_at: null,
      created_by: null,
      created_at: '2026-11-30T00:00:00.000Z',
      updated_at: '2026-11-30T00:00:00.000Z',
      version: 0,
      delivery_stopped: null,
    };
    const api = { listEmailDestinations: vi.fn(async () => noDoctors) };
    renderInRouter(() => <EmailEditorPage email={email} restrictedSenders={null} userEmail="owner@example.jp" />, {
      api,
      paths: ['/emails', '/emails/$id/edit'],
    });
    const list = await screen.findByTestId('email-invalid-destinations');
    expect(list).toHaveTextContent('3行目: 「yamada@」はメールアドレスとして使えません');
    expect(list).toHaveTextContent('7行目: 「」はメールアドレスとして使えません');
  });
  it('shows the saved attachment with its size and sends its id, or null once removed, when saved', async () => {
    const fileId = '00000000-0000-4000-8000-0000000000f1';
    const email = {
      id: '00000000-0000-4000-8000-000000000002',
      title: '研修会のご案内',
      status: 'unsent' as const,
      destination_count: 1,
      invalid_destination_count: 0,
      invalid_destinations: [],
      sender_name: '地域連携室',
      sender_email: 'owner@example.jp',
      main_content: '<p>ご案内</p>',
      attachment_id: fileId,
      attachment_name: '研修会資料.pdf',
      attachment_size: 1536,
      attachment_url: `/files/${fileId}?expires=1&signature=s`,
      doctor_ids: [],
      sent_at: null,
      created_by: null,
      created_at: '2026-11-30T00:00:00.000Z',
      updated_at: '2026-11-30T00:00:00.000Z',
      version: 0,
      delivery_stopped: null,
    };
    const sent: unknown[] = [];
    const api = {
      listEmailDestinations: vi.fn(async () => noDoctors),
      updateEmail: vi.fn(async ({ body }: { body: FormData }) => {
        const values = JSON.parse(body.get('stringified') as string) as { attachment_id: string | null };
        sent.push(values.attachment_id);
        return {
          ...email,
          attachment_id: values.attachment_id,
          attachment_name: null,
          attachment_size: null,
          attachment_url: null,
        };
      }),
    };
    renderInRouter(() => <EmailEditorPage email={email} restrictedSenders={null} userEmail="owner@example.jp" />, {
      api,
      paths: ['/emails', '/emails/$id/edit'],
    });
    const shown = await screen.findByTestId('email-attachment');
    expect(shown).toHaveTextContent('研修会資料.pdf');
    expect(shown).toHaveTextContent('（2 KB）');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await vi.waitFor(() => expect(sent).toEqual([fileId]));
    await userEvent.click(screen.getByRole('button', { name: '研修会資料.pdfを外す' }));
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await vi.waitFor(() => expect(sent).toEqual([fileId, null]));
  });

  it('asks before leaving with changes not saved, and keeps them when the user stays', async () => {
    const api = {
      listEmailDestinations: vi.fn(async () => noDoctors),
      createEmail: vi.fn(async () => ({ ...draft, title: '研修会のご案内（改）' })),
    };
    const { router } = renderInRouter(
      () => <EmailEditorPage email={null} restrictedSenders={null} userEmail="owner@example.jp" />,
      { api, paths: ['/emails', '/emails/$id/edit'] },
    );
    const back = await screen.findByRole('link', { name: '一覧へ戻る' });
    await userEvent.type(screen.getByRole('textbox', { name: '件名' }), '研修会のご案内（改）');
    await userEvent.click(back);
    const dialog = await screen.findByRole('dialog', { name: '保存していない変更があります' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'このページに戻る' }));
    await vi.waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(router.state.location.pathname).toBe('/');
    expect(screen.getByRole('textbox', { name: '件名' })).toHaveValue('研修会のご案内（改）');

    await userEvent.click(back);
    await userEvent.click(
      within(await screen.findByRole('dialog', { name: '保存していない変更があります' })).getByRole('button', {
        name: '保存せずに移動',
      }),
    );
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/emails'));
  });

  it('leaves without asking once the changes are saved', async () => {
    const api = {
      listEmailDestinations: vi.fn(async () => noDoctors),
      updateEmail: vi.fn(async () => ({ ...draft, title: '研修会のご案内（改）', version: 1 })),
    };
    const { router } = renderInRouter(
      () => <EmailEditorPage email={draft} restrictedSenders={null} userEmail="owner@example.jp" />,
      { api, paths: ['/emails', '/emails/$id/edit'] },
    );
    await userEvent.type(await screen.findByRole('textbox', { name: '件名' }), '（改）');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await vi.waitFor(() => expect(api.updateEmail).toHaveBeenCalled());
    await userEvent.click(screen.getByRole('link', { name: '一覧へ戻る' }));
    await vi.waitFor(() => expect(router.state.location.pathname).toBe('/emails'));
    expect(screen.queryByRole('dialog', { name: '保存していない変更があります' })).not.toBeInTheDocument();
  });
});

const draft = {
  id: '00000000-0000-4000-8000-000000000003',
  title: '研修会のご案内',
  status: 'unsent' as const,
  destination_count: 0,
  invalid_destination_count: 0,
  invalid_destinations: [],
  sender_name: '地域連携室',
  sender_email: 'owner@example.jp',
  main_content: '<p>ご案内</p>',
  attachment_id: null,
  attachment_name: null,
  attachment_size: null,
  attachment_url: null,
  doctor_ids: [],
  sent_at: null,
  created_by: null,
  created_at: '2026-11-30T00:00:00.000Z',
  updated_at: '2026-11-30T00:00:00.000Z',
  version: 0,
  delivery_stopped: null,
};
