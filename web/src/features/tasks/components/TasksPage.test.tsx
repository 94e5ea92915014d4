import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { toast } from '../../../app/toast.ts';
import { errorPageStore } from '../../../errors/error-page-store.ts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import type { TasksParams } from '../task-list-params.ts';
import { taskConflictMessage } from '../tasks.queries.ts';
import { clinic, hospital, taskApi, testId, testTask } from '../testing.ts';
import { todayInJapan } from '../../data-analysis/analysis-periods.ts';
import { TaskList } from './TaskList.tsx';
import { TasksPage } from './TasksPage.tsx';

const me = testId(30);
const defaults: TasksParams = { page: 1, status: 'incomplete', sort_by: 'deadline', assignee: 'mine' };
const paths = ['/crms/$id', '/crms/$id/communications', '/communications'];

afterEach(() => vi.restoreAllMocks());

function renderPage(params: Partial<TasksParams>, stored = [testTask()]) {
  const api = taskApi(stored);
  const onParamsChange = vi.fn();
  const view = renderInRouter(
    () => <TasksPage params={{ ...defaults, ...params }} currentUserId={me} onParamsChange={onParamsChange} />,
    { api, paths },
  );
  return { api, onParamsChange, ...view };
}

describe('/tasks', () => {
  it('lists my tasks by default, soonest deadline first, and switches to everyone’s in the URL', async () => {
    const { api, onParamsChange } = renderPage({});
    expect(await screen.findByTestId('task-row')).toBeInTheDocument();
    expect(screen.getByTestId('task-total')).toHaveTextContent('全1件');
    expect(api.listTasks).toHaveBeenCalledWith(
      expect.objectContaining({
        query: { page: 1, status: 'incomplete', sort_by: 'deadline', sort: 'asc', per_page: 20, user_id: me },
      }),
    );
    const assignee = screen.getByRole('radiogroup', { name: '担当' });
    await userEvent.click(within(assignee).getByRole('radio', { name: 'すべて' }));
    expect(onParamsChange).toHaveBeenCalledWith({ assignee: 'all', page: 1 });
  });

  it('asks for every staff member’s tasks under すべて', async () => {
    const { api } = renderPage({ assignee: 'all', sort_by: 'created_at' });
    expect(await screen.findByTestId('task-row')).toBeInTheDocument();
    expect(api.listTasks).toHaveBeenCalledWith(
      expect.objectContaining({
        query: { page: 1, status: 'incomplete', sort_by: 'created_at', sort: 'desc', per_page: 20 },
      }),
    );
  });

  it('says where the other tasks are when I have none', async () => {
    renderPage({}, [testTask({ staff: null })]);
    expect(await screen.findByTestId('task-list-empty')).toHaveTextContent(
      '未完了のタスクはありません。担当者が未設定のタスクやほかの人のタスクは「すべて」で確認できます。',
    );
  });

  it('tells how to add a task when the tenant has none', async () => {
    renderPage({ assignee: 'all', status: 'all' }, []);
    expect(await screen.findByTestId('task-list-empty')).toHaveTextContent(
      /^タスクはありません。「タスクを追加」から登録できます。活動の記録から作ったタスクもここに並びます。$/,
    );
  });

  it('shows each task’s institution with its number to call and, once closed, its status', async () => {
    renderPage({ assignee: 'all' }, [
      testTask({
        id: testId(1),
        title: '折り返しの電話',
        medical_institution: { ...testTask().medical_institution!, tel: '054-123-4567' },
      }),
      testTask({
        id: testId(2),
        title: '閉院の確認',
        medical_institution: { ...testTask().medical_institution!, ...hospital, running_status: 'closed' },
      }),
    ]);
    const [call, closed] = await screen.findAllByTestId('task-row');
    expect(within(call!).getByRole('link', { name: 'TEL 054-123-4567' })).toHaveAttribute('href', 'tel:0541234567');
    expect(within(call!).queryByText('廃止')).toBeNull();
    expect(within(closed!).getByText('廃止')).toBeInTheDocument();
    expect(within(closed!).queryByRole('link', { name: /^TEL/ })).toBeNull();
  });

  it('adds a task of my own for an institution picked by name', async () => {
    const success = vi.spyOn(toast, 'success').mockImplementation(() => {});
    const { api } = renderPage({}, []);
    await screen.findByTestId('task-list-empty');
    await userEvent.click(screen.getByRole('button', { name: 'タスクを追加' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを追加' });
    await userEvent.type(within(dialog).getByLabelText(/タイトル/), '折り返しの電話');
    const institution = within(dialog).getByRole('combobox', { name: '医療機関' });
    await userEvent.type(institution, '富士見');
    await userEvent.click(await screen.findByRole('option', { name: hospital.name, hidden: true }));
    await waitFor(() => expect(within(dialog).getByRole('combobox', { name: '担当者' })).toHaveValue('佐藤'));
    await userEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    await waitFor(() =>
      expect(api.createTask).toHaveBeenCalledWith({
        body: { title: '折り返しの電話', deadline: null, staff_id: me, medical_institution_id: hospital.id },
      }),
    );
    expect(success).toHaveBeenCalledWith('タスクを追加しました');
    const row = await screen.findByTestId('task-row');
    expect(row).toHaveTextContent('折り返しの電話');
    expect(within(row).getByRole('link', { name: hospital.name })).toBeInTheDocument();
  });

  it('starts a new task from the institution the list is narrowed to', async () => {
    const { api } = renderPage({ assignee: 'all', medical_institution_id: hospital.id }, []);
    await screen.findByTestId('task-list-empty');
    await userEvent.click(screen.getByRole('button', { name: 'タスクを追加' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを追加' });
    expect(within(dialog).getByRole('combobox', { name: '医療機関' })).toHaveValue(hospital.name);
    await userEvent.type(within(dialog).getByLabelText(/タイトル/), '資料を届ける');
    await userEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    await waitFor(() =>
      expect(api.createTask).toHaveBeenCalledWith({
        body: expect.objectContaining({ title: '資料を届ける', medical_institution_id: hospital.id }),
      }),
    );
  });
});

describe('/tasks by institution', () => {
  it('picks an institution by a typed name into the URL, through the partner search', async () => {
    const { api, onParamsChange } = renderPage({ assignee: 'all' });
    await screen.findByTestId('task-row');
    await userEvent.type(screen.getByRole('combobox', { name: '医療機関' }), '富士見');
    await userEvent.click(await screen.findByRole('option', { name: hospital.name, hidden: true }));
    expect(api.searchMedicalInstitutions).toHaveBeenCalledWith(
      expect.objectContaining({ body: { keyword: '富士見', per_page: 20 } }),
    );
    expect(onParamsChange).toHaveBeenCalledWith({ medical_institution_id: hospital.id, page: 1 });
  });

  it('tells institutions of the same name apart by their address', async () => {
    const { api, onParamsChange } = renderPage({ assignee: 'all' });
    await screen.findByTestId('task-row');
    const twin = (n: number, address: string) => ({ ...hospital, id: testId(n), address });
    api.searchMedicalInstitutions.mockImplementation(async () => ({
      data: [twin(70, '静岡県三島市元町1-1'), twin(71, '静岡県沼津市大手町2-2')],
      meta: { total_count: 2, page: 1, per_page: 20, total_pages: 1 },
    }));
    await userEvent.type(screen.getByRole('combobox', { name: '医療機関' }), '富士見');
    const options = await screen.findAllByRole('option', { hidden: true });
    expect(options.map((o) => o.textContent)).toEqual([
      `${hospital.name}静岡県三島市元町1-1`,
      `${hospital.name}静岡県沼津市大手町2-2`,
    ]);
    await userEvent.click(options[1]!);
    expect(onParamsChange).toHaveBeenCalledWith({ medical_institution_id: testId(71), page: 1 });
  });

  it('lists the picked institution’s tasks only, shows its name, and clears it', async () => {
    const { api, onParamsChange } = renderPage({ assignee: 'all', medical_institution_id: hospital.id }, [
      testTask({ id: testId(1), title: '駿河の件' }),
      testTask({
        id: testId(2),
        title: '富士見の件',
        medical_institution: { ...testTask().medical_institution!, ...hospital },
      }),
    ]);
    const row = await screen.findByTestId('task-row');
    expect(row).toHaveTextContent('富士見の件');
    expect(screen.getAllByTestId('task-row')).toHaveLength(1);
    expect(api.listTasks).toHaveBeenCalledWith(
      expect.objectContaining({ query: expect.objectContaining({ medical_institution_id: hospital.id }) }),
    );
    // Its name comes from its summary: the URL has its id only.
    await waitFor(() => expect(screen.getByRole('combobox', { name: '医療機関' })).toHaveValue(hospital.name));
    // The picked name is not searched again.
    expect(api.searchMedicalInstitutions).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: '医療機関の選択を外す' }));
    expect(onParamsChange).toHaveBeenCalledWith({ medical_institution_id: undefined, page: 1 });
  });

  it('says how to widen the search when the institution has none of my tasks', async () => {
    renderPage({ medical_institution_id: hospital.id }, []);
    expect(await screen.findByTestId('task-list-empty')).toHaveTextContent(
      '未完了のタスクはありません。この医療機関のほかの人のタスクは「すべて」で、ほかの医療機関のタスクは医療機関の選択を外すと確認できます。',
    );
  });
});

describe('editing and deleting on /tasks', () => {
  it('edits a task over its version: title, deadline, staff, institution and status', async () => {
    const success = vi.spyOn(toast, 'success').mockImplementation(() => {});
    const { api } = renderPage({ status: 'all' });
    const row = await screen.findByTestId('task-row');
    await userEvent.click(within(row).getByRole('button', { name: '資料送付を編集' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを編集' });
    const title = within(dialog).getByRole('textbox', { name: /タイトル/ });
    expect(title).toHaveValue('資料送付');
    await waitFor(() => expect(within(dialog).getByRole('combobox', { name: '医療機関' })).toHaveValue(clinic.name));
    await userEvent.clear(title);
    await userEvent.type(title, '資料を再送付');
    fireEvent.change(within(dialog).getByLabelText('期限'), { target: { value: '2099-02-01' } });
    const institution = within(dialog).getByRole('combobox', { name: '医療機関' });
    await userEvent.clear(institution);
    await userEvent.type(institution, '富士見');
    await userEvent.click(await screen.findByRole('option', { name: hospital.name, hidden: true }));
    await userEvent.click(
      within(within(dialog).getByRole('radiogroup', { name: '状況' })).getByRole('radio', { name: '完了' }),
    );
    await userEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    await waitFor(() =>
      expect(api.updateTask).toHaveBeenCalledWith({
        params: { id: testId(40) },
        ifMatch: 2,
        body: {
          title: '資料を再送付',
          deadline: '2099-02-01',
          staff_id: me,
          medical_institution_id: hospital.id,
          status: 'finished',
        },
      }),
    );
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(success).toHaveBeenCalledWith('タスクを更新しました');
    expect(await screen.findByText('資料を再送付')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: hospital.name })).toBeInTheDocument();
  });

  it('keeps the edit open with the contract’s message on an empty title, sending nothing', async () => {
    const { api } = renderPage({});
    const row = await screen.findByTestId('task-row');
    await userEvent.click(within(row).getByRole('button', { name: '資料送付を編集' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを編集' });
    await userEvent.clear(within(dialog).getByRole('textbox', { name: /タイトル/ }));
    await userEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    expect(await within(dialog).findByText('タイトルを入力してください')).toBeInTheDocument();
    expect(api.updateTask).not.toHaveBeenCalled();
  });

  it('shows the API’s 422 on its field and keeps what was typed', async () => {
    const { api } = renderPage({});
    api.updateTask.mockRejectedValueOnce(
      new ApiError(422, '入力内容に誤りがあります。', undefined, [
        { field: 'medical_institution_id', message: '医療機関が見つかりません' },
      ]),
    );
    const row = await screen.findByTestId('task-row');
    await userEvent.click(within(row).getByRole('button', { name: '資料送付を編集' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを編集' });
    await userEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    expect(await within(dialog).findByText('医療機関が見つかりません')).toBeInTheDocument();
  });

  it('on a 409 closes the edit, says so, and shows the task as it is now', async () => {
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    const { api } = renderPage({});
    const row = await screen.findByTestId('task-row');
    await userEvent.click(within(row).getByRole('button', { name: '資料送付を編集' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを編集' });
    api.touch(testId(40));
    await userEvent.click(within(dialog).getByRole('button', { name: '保存' }));
    await waitFor(() => expect(shown).toHaveBeenCalledWith(taskConflictMessage));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(await screen.findByText('資料送付（更新済み）')).toBeInTheDocument();
  });

  it('deletes a task after asking, over its version', async () => {
    const success = vi.spyOn(toast, 'success').mockImplementation(() => {});
    const { api } = renderPage({}, [testTask(), testTask({ id: testId(41), title: '電話する', version: 5 })]);
    const rows = await screen.findAllByTestId('task-row');
    await userEvent.click(within(rows[1]!).getByRole('button', { name: '電話するを削除' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを削除' });
    expect(dialog).toHaveTextContent('タスク「電話する」を削除しますか？');
    await userEvent.click(within(dialog).getByRole('button', { name: '削除する' }));
    await waitFor(() => expect(api.deleteTask).toHaveBeenCalledWith({ params: { id: testId(41) }, ifMatch: 5 }));
    await waitFor(() => expect(screen.queryByText('電話する')).not.toBeInTheDocument());
    expect(success).toHaveBeenCalledWith('タスクを削除しました');
    expect(screen.getAllByTestId('task-row')).toHaveLength(1);
  });

  it('a task deleted meanwhile is said in a toast, not the 404 page, and leaves the list', async () => {
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    const page = vi.spyOn(errorPageStore, 'show');
    const { api } = renderPage({});
    const row = await screen.findByTestId('task-row');
    await userEvent.click(within(row).getByRole('button', { name: '資料送付を削除' }));
    const dialog = await screen.findByRole('dialog', { name: 'タスクを削除' });
    await api.deleteTask({ params: { id: testId(40) }, ifMatch: 2 });
    await userEvent.click(within(dialog).getByRole('button', { name: '削除する' }));
    await waitFor(() => expect(shown).toHaveBeenCalledWith('このタスクは削除されています。一覧を読み込み直しました。'));
    expect(page).not.toHaveBeenCalled();
    expect(await screen.findByTestId('task-list-empty')).toBeInTheDocument();
  });
});

describe('task list', () => {
  function renderList(stored = [testTask()], showInstitution = true) {
    const api = taskApi(stored);
    const onFiltersChange = vi.fn();
    const view = renderInRouter(
      () => (
        <TaskList
          filters={{ page: 1, status: 'all', sort_by: 'deadline' }}
          onFiltersChange={onFiltersChange}
          scope={{ medical_institution_id: clinic.id }}
          showInstitution={showInstitution}
          emptyText=""
          onEdit={() => {}}
          onDelete={() => {}}
        />
      ),
      { api, paths },
    );
    return { api, onFiltersChange, ...view };
  }

  it('marks tasks past their deadline, not finished ones or those still due', async () => {
    renderList([
      testTask({ id: testId(1), title: '期限切れの件' }),
      testTask({ id: testId(2), title: '完了済みの件', status: 'finished' }),
      testTask({ id: testId(3), title: 'まだ先の件', deadline: '2099-12-31' }),
      testTask({ id: testId(4), title: '今日までの件', deadline: todayInJapan() }),
    ]);
    const rows = await screen.findAllByTestId('task-row');
    const row = (title: string) => rows.find((r) => r.textContent?.includes(title))!;
    // Its last day: marked, not yet overdue.
    expect(within(row('今日までの件')).getByText('今日まで')).toBeInTheDocument();
    expect(within(row('今日までの件')).queryByText('期限切れ')).not.toBeInTheDocument();
    expect(within(row('まだ先の件')).queryByText('今日まで')).not.toBeInTheDocument();
    expect(within(row('期限切れの件')).getByText('期限切れ')).toBeInTheDocument();
    expect(within(row('期限切れの件')).getByText('期限 2000/01/31')).toBeInTheDocument();
    expect(within(row('完了済みの件')).queryByText('期限切れ')).not.toBeInTheDocument();
    expect(within(row('まだ先の件')).queryByText('期限切れ')).not.toBeInTheDocument();
    expect(within(row('期限切れの件')).getByRole('link', { name: clinic.name })).toHaveAttribute(
      'href',
      `/app/crms/${clinic.id}`,
    );
  });

  it('completes a task in one click, over the version it was read at', async () => {
    const { api } = renderList();
    const row = await screen.findByTestId('task-row');
    await userEvent.click(within(row).getByRole('checkbox', { name: '資料送付を完了にする' }));
    await waitFor(() =>
      expect(api.updateTask).toHaveBeenCalledWith(
        expect.objectContaining({
          params: { id: testId(40) },
          ifMatch: 2,
          body: expect.objectContaining({ status: 'finished', title: '資料送付', staff_id: testId(30) }),
        }),
      ),
    );
    // The list is read again, with the task now done.
    await waitFor(() => expect(within(row).getByRole('checkbox')).toBeChecked());
  });

  it('a one-click complete refused as stale reads the list again, so the next click works', async () => {
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    const { api } = renderList();
    const row = await screen.findByTestId('task-row');
    api.touch(testId(40));
    await userEvent.click(within(row).getByRole('checkbox', { name: '資料送付を完了にする' }));
    await waitFor(() => expect(shown).toHaveBeenCalledWith(taskConflictMessage));
    const again = await screen.findByRole('checkbox', { name: '資料送付（更新済み）を完了にする' });
    await userEvent.click(again);
    await waitFor(() => expect(api.updateTask).toHaveBeenLastCalledWith(expect.objectContaining({ ifMatch: 3 })));
    await waitFor(() => expect(again).toBeChecked());
  });

  it('links a task made with a communication to that record on its institution’s timeline', async () => {
    const communicationId = testId(70);
    const { api, router } = renderList([
      testTask({ id: testId(1), title: '単独の件' }),
      testTask({ id: testId(2), title: '訪問後の件', communication_id: communicationId }),
    ]);
    const rows = await screen.findAllByTestId('task-row');
    expect(within(rows[0]!).queryByRole('link', { name: '元の活動記録' })).not.toBeInTheDocument();
    const link = within(rows[1]!).getByRole('link', { name: '元の活動記録' });
    expect(link).toHaveAttribute(
      'href',
      `/app/crms/${clinic.id}/communications?page=1&sort=desc#communication-${communicationId}`,
    );
    // A click opens the timeline on the record's day, so the record is on the page however old it is.
    await userEvent.click(link);
    await waitFor(() => expect(router.state.location.pathname).toBe(`/crms/${clinic.id}/communications`));
    expect(api.getCommunication).toHaveBeenCalledWith(expect.objectContaining({ params: { id: communicationId } }));
    expect(router.state.location.search).toEqual({ page: 1, sort: 'desc', from: '2026-10-05', to: '2026-10-05' });
    expect(router.state.location.hash).toBe(`communication-${communicationId}`);
  });

  it('says so when the original record has been deleted', async () => {
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    const { api, router } = renderList([testTask({ communication_id: testId(70) })]);
    api.getCommunication.mockRejectedValueOnce(new ApiError(404, '見つかりません'));
    await userEvent.click(await screen.findByRole('link', { name: '元の活動記録' }));
    await waitFor(() => expect(shown).toHaveBeenCalledWith('元の活動記録は削除されています。'));
    expect(router.state.location.pathname).toBe('/');
  });

  it('puts a new status filter into the URL from page 1, and leaves out the institution on its own page', async () => {
    const { onFiltersChange } = renderList([testTask()], false);
    const row = await screen.findByTestId('task-row');
    expect(within(row).queryByRole('link')).not.toBeInTheDocument();
    await userEvent.click(
      within(screen.getByRole('radiogroup', { name: '状況' })).getByRole('radio', { name: '完了' }),
    );
    expect(onFiltersChange).toHaveBeenCalledWith({ status: 'finished', page: 1 });
  });

  it('turns the order around, and a new sort key starts in its own direction', async () => {
    const { onFiltersChange } = renderList();
    await screen.findByTestId('task-row');
    const direction = screen.getByRole('radiogroup', { name: '向き' });
    expect(within(direction).getByRole('radio', { name: '期限が近い順' })).toBeChecked();
    await userEvent.click(within(direction).getByRole('radio', { name: '期限が遠い順' }));
    expect(onFiltersChange).toHaveBeenCalledWith({ sort: 'desc', page: 1 });
    await userEvent.click(
      within(screen.getByRole('radiogroup', { name: '並び順' })).getByRole('radio', { name: '作成日順' }),
    );
    expect(onFiltersChange).toHaveBeenCalledWith({ sort_by: 'created_at', sort: undefined, page: 1 });
  });
});
