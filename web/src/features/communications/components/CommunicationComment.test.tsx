import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Communication, CommunicationComment as Comment } from '@renkei/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, useServices, type AppServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { testServices } from '../../../test/render-app.tsx';
import { communicationQueries } from '../communications.queries.ts';
import { CommunicationComment, commentConflictMessage, commentGoneMessage } from './CommunicationComment.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const me = { id: id(30), name: '佐藤' };
const colleague = { id: id(31), name: '鈴木' };
const comment = (n: number, patch: Partial<Comment> = {}): Comment => ({
  id: id(n),
  user: me,
  created_date: '2026-11-20T01:00:00.000Z',
  comment: `コメント${n}`,
  version: 0,
  ...patch,
});

/** The record's comments as the timeline lists them, read through the search like the page does. */
function Comments() {
  const { api } = useServices();
  const { data } = useQuery(communicationQueries.search(api, {}));
  return (
    <>
      {data?.data[0]?.comments.map((m) => (
        <CommunicationComment key={m.id} communicationId={id(10)} comment={m} currentUserId={me.id} />
      ))}
    </>
  );
}

function renderComments(stored: Comment[]) {
  let comments = stored;
  const api = {
    searchCommunications: vi.fn(async () => ({
      data: [{ id: id(10), comments } as Communication],
      meta: { total_count: 1, current_page: 1, per_page: 20, total_pages: 1 },
    })),
    // As the server: a version other than the stored one is a 409, nothing written.
    updateComment: vi.fn(
      async ({ params, body, ifMatch }: { params: { id: string }; body: { comment: string }; ifMatch: number }) => {
        const saved = comments.find((c) => c.id === params.id)!;
        if (saved.version !== ifMatch) throw new ApiError(409, '競合しました');
        const next = { ...saved, comment: body.comment, version: saved.version + 1 };
        comments = comments.map((c) => (c.id === params.id ? next : c));
        return next;
      },
    ),
    deleteComment: vi.fn(async ({ params, ifMatch }: { params: { id: string }; ifMatch: number }) => {
      if (comments.find((c) => c.id === params.id)!.version !== ifMatch) throw new ApiError(409, '競合しました');
      comments = comments.filter((c) => c.id !== params.id);
      return null;
    }),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <Comments />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  /** Someone saves the stored comments behind the screen's back (another tab of the author). */
  const changeBehind = (next: Comment[]) => (comments = next);
  return { api, changeBehind, client };
}

afterEach(() => vi.restoreAllMocks());

describe('a comment of a communication', () => {
  it('lets its author edit it in place against the version read; others’ comments have no buttons', async () => {
    const { api } = renderComments([comment(1, { version: 2 }), comment(2, { user: colleague })]);
    const [mine, theirs] = await screen.findAllByTestId('communication-comment');
    expect(within(theirs!).queryByRole('button')).not.toBeInTheDocument();
    await userEvent.click(within(mine!).getByRole('button', { name: 'コメントを編集' }));
    const box = screen.getByLabelText('コメントを編集');
    expect(box).toHaveValue('コメント1');
    await userEvent.clear(box);
    await userEvent.type(box, '訂正しました');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(api.updateComment).toHaveBeenCalledTimes(1));
    expect(api.updateComment.mock.calls[0]![0]).toMatchObject({
      params: { communication_id: id(10), id: id(1) },
      body: { comment: '訂正しました' },
      ifMatch: 2,
    });
    // The list is read again and shows the saved text; the next edit would send version 3.
    expect(await screen.findByText('訂正しました')).toBeInTheDocument();
    expect(screen.queryByLabelText('コメントを編集', { selector: 'textarea' })).not.toBeInTheDocument();
  });

  it('says so on a stale edit (409) and shows the comment as stored', async () => {
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    const { api, changeBehind, client } = renderComments([comment(1)]);
    await userEvent.click(await screen.findByRole('button', { name: 'コメントを編集' }));
    changeBehind([comment(1, { comment: '別の画面で直した', version: 1 })]);
    // The list is read again while the edit is open: the edit stays based on the version it began from.
    await client.invalidateQueries();
    await waitFor(() => expect(api.searchCommunications).toHaveBeenCalledTimes(2));
    const box = screen.getByLabelText('コメントを編集');
    await userEvent.clear(box);
    await userEvent.type(box, '古い版からの編集');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(shown).toHaveBeenCalledWith(commentConflictMessage));
    expect(api.updateComment.mock.calls[0]![0]).toMatchObject({ ifMatch: 0 });
    expect(await screen.findByText('別の画面で直した')).toBeInTheDocument();
    expect(api.searchCommunications).toHaveBeenCalledTimes(3);
  });

  it('deletes after a confirmation, with If-Match, and a stale delete keeps the comment', async () => {
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    const { api, changeBehind } = renderComments([comment(1, { version: 1 }), comment(2)]);
    const [first] = await screen.findAllByTestId('communication-comment');
    await userEvent.click(within(first!).getByRole('button', { name: 'コメントを削除' }));
    const dialog = await screen.findByRole('dialog', { name: 'コメントの削除' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'キャンセル' }));
    expect(api.deleteComment).not.toHaveBeenCalled();

    // Deleted from a version that is no longer the stored one: refused.
    changeBehind([comment(1, { version: 2 }), comment(2)]);
    await userEvent.click(within(first!).getByRole('button', { name: 'コメントを削除' }));
    await userEvent.click(await screen.findByTestId('confirm-delete-comment'));
    await waitFor(() => expect(shown).toHaveBeenCalledWith(commentConflictMessage));
    expect(api.deleteComment.mock.calls[0]![0]).toMatchObject({ params: { id: id(1) }, ifMatch: 1 });
    expect(screen.getByText('コメント1')).toBeInTheDocument();

    const [again] = await screen.findAllByTestId('communication-comment');
    await userEvent.click(within(again!).getByRole('button', { name: 'コメントを削除' }));
    await userEvent.click(await screen.findByTestId('confirm-delete-comment'));
    await waitFor(() => expect(screen.queryByText('コメント1')).not.toBeInTheDocument());
    expect(screen.getByText('コメント2')).toBeInTheDocument();
  });

  it('says so when the comment was deleted elsewhere (404) and shows the list without it', async () => {
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    const { api, changeBehind } = renderComments([comment(1), comment(2)]);
    const [first] = await screen.findAllByTestId('communication-comment');
    await userEvent.click(within(first!).getByRole('button', { name: 'コメントを編集' }));
    changeBehind([comment(2)]);
    api.updateComment.mockRejectedValueOnce(new ApiError(404, '見つかりません'));
    await userEvent.type(screen.getByRole('textbox', { name: 'コメントを編集' }), '追記');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    await waitFor(() => expect(shown).toHaveBeenCalledWith(commentGoneMessage));
    await waitFor(() => expect(screen.queryByText('コメント1')).not.toBeInTheDocument());
    expect(screen.getByText('コメント2')).toBeInTheDocument();
  });
});
