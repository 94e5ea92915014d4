import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { toast } from '../../../app/toast.ts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { clinic, taskApi, testId, testTask } from '../testing.ts';
import { InstitutionTasksPage } from './InstitutionTasksPage.tsx';

const me = testId(30);

afterEach(() => vi.restoreAllMocks());

function renderPage(stored = [testTask()]) {
  const api = {
    ...taskApi(stored),
    listStaffs: vi.fn(async () => [
      { id: me, name: '佐藤' },
      { id: testId(31), name: '鈴木' },
    ]),
  };
  renderInRouter(
    () => (
      <InstitutionTasksPage
        institution={clinic}
        filters={{ page: 1, status: 'incomplete', sort_by: 'deadline' }}
        currentUserId={me}
        onFiltersChange={() => {}}
      />
    ),
    { api, paths: ['/crms/$id', '/crms/$id/communications'] },
  );
  return api;
}

describe("an institution's tasks", () => {
  it('lists the institution’s tasks under its name, without repeating the institution on each row', async () => {
    const api = renderPage();
    const title = await screen.findByTestId('institution-tasks-title');
    expect(title).toHaveTextContent('駿河クリニック のタスク');
    expect(screen.getByRole('link', { name: '医療機関ページへ戻る' })).toHaveAttribute(
      'href',
      `/app/crms/${clinic.id}`,
    );
    const row = await screen.findByTestId('task-row');
    expect(within(row).getByText('期限切れ')).toBeInTheDocument();
    expect(within(row).queryByRole('link')).not.toBeInTheDocument();
    expect(api.listTasks).toHaveBeenCalledWith(
      expect.objectContaining({ query: expect.objectContaining({ medical_institution_id: clinic.id }) }),
    );
  });

  it('says how to add a task when there is none', async () => {
    renderPage([]);
    expect(await screen.findByTestId('task-list-empty')).toHaveTextContent(
      '未完了のタスクはありません。「タスクを追加」から登録できます。',
    );
  });

  it('adds a task for the institution, assigned to me unless changed, and lists it at once', async () => {
    const success = vi.spyOn(toast, 'success').mockImplementation(() => {});
    const api = renderPage([]);
    await userEvent.click(await screen.findByRole('button', { name: 'タスクを追加' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを追加' });
    // Refused before anything is sent, with the contract's message.
    await userEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    expect(await within(dialog).findByText('タイトルを入力してください')).toBeInTheDocument();
    expect(api.createTask).not.toHaveBeenCalled();

    await userEvent.type(within(dialog).getByLabelText(/タイトル/), '見積を送る');
    fireEvent.change(within(dialog).getByLabelText('期限'), { target: { value: '2099-01-15' } });
    await waitFor(() => expect(within(dialog).getByRole('combobox', { name: '担当者' })).toHaveValue('佐藤'));
    await userEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    await waitFor(() =>
      expect(api.createTask).toHaveBeenCalledWith({
        body: { title: '見積を送る', deadline: '2099-01-15', staff_id: me, medical_institution_id: clinic.id },
      }),
    );
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(success).toHaveBeenCalledWith('タスクを追加しました');
    expect(await screen.findByText('見積を送る')).toBeInTheDocument();
  });

  it('keeps the form open with the API’s 422 message on its field', async () => {
    const api = renderPage([]);
    api.createTask.mockRejectedValueOnce(
      new ApiError(422, '入力内容に誤りがあります。', undefined, [
        { field: 'staff_id', message: '担当者が見つかりません' },
      ]),
    );
    await userEvent.click(await screen.findByRole('button', { name: 'タスクを追加' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを追加' });
    await userEvent.type(within(dialog).getByLabelText(/タイトル/), '見積を送る');
    await userEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    expect(await within(dialog).findByText('担当者が見つかりません')).toBeInTheDocument();
    expect(within(dialog).getByLabelText(/タイトル/)).toHaveValue('見積を送る');
  });

  it('closes the form and reports any other failure', async () => {
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    const api = renderPage([]);
    api.createTask.mockRejectedValueOnce(new ApiError(500, 'サーバーエラー'));
    await userEvent.click(await screen.findByRole('button', { name: 'タスクを追加' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを追加' });
    await userEvent.type(within(dialog).getByLabelText(/タイトル/), '見積を送る');
    await userEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(shown).toHaveBeenCalled();
  });

  it('edits a task in place: the form shows the task’s own values, the save goes over its version', async () => {
    vi.spyOn(toast, 'success').mockImplementation(() => {});
    const api = renderPage([testTask({ staff: { id: testId(31), name: '鈴木' }, deadline: null })]);
    const row = await screen.findByTestId('task-row');
    await userEvent.click(within(row).getByRole('button', { name: '資料送付を編集' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを編集' });
    expect(within(dialog).getByLabelText('期限')).toHaveValue('');
    await waitFor(() => expect(within(dialog).getByRole('combobox', { name: '担当者' })).toHaveValue('鈴木'));
    await userEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    await waitFor(() =>
      expect(api.updateTask).toHaveBeenCalledWith({
        params: { id: testId(40) },
        ifMatch: 2,
        body: {
          title: '資料送付',
          deadline: null,
          staff_id: testId(31),
          medical_institution_id: clinic.id,
          status: 'incomplete',
        },
      }),
    );
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('deletes a task in place after asking, and says what to do once none is left', async () => {
    vi.spyOn(toast, 'success').mockImplementation(() => {});
    const api = renderPage([testTask({ communication_id: testId(70) })]);
    const row = await screen.findByTestId('task-row');
    await userEvent.click(within(row).getByRole('button', { name: '資料送付を削除' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを削除' });
    // A task of a communication goes alone: the record stays.
    expect(dialog).toHaveTextContent('元の活動記録は削除されません。');
    await userEvent.click(within(dialog).getByRole('button', { name: '削除する' }));
    await waitFor(() => expect(api.deleteTask).toHaveBeenCalledWith({ params: { id: testId(40) }, ifMatch: 2 }));
    expect(await screen.findByTestId('task-list-empty')).toHaveTextContent('「タスクを追加」から登録できます。');
  });
});
