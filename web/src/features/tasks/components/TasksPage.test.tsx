import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { clinic, taskApi, testId, testTask } from '../testing.ts';
import { TaskList } from './TaskList.tsx';
import { TasksPage, type TasksParams } from './TasksPage.tsx';

const me = testId(30);
const defaults: TasksParams = { page: 1, status: 'incomplete', sort_by: 'deadline', assignee: 'mine' };

function renderPage(params: Partial<TasksParams>, stored = [testTask()]) {
  const api = taskApi(stored);
  const onParamsChange = vi.fn();
  renderInRouter(
    () => <TasksPage params={{ ...defaults, ...params }} currentUserId={me} onParamsChange={onParamsChange} />,
    { api, paths: ['/crms/$id'] },
  );
  return { api, onParamsChange };
}

describe('/tasks', () => {
  it('lists my tasks by default, soonest deadline first, and switches to everyone’s in the URL', async () => {
    const { api, onParamsChange } = renderPage({});
    expect(await screen.findByTestId('task-row')).toBeInTheDocument();
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
      /^タスクはありません。活動の記録や医療機関のタスク画面から追加できます。$/,
    );
  });
});

describe('task list', () => {
  function renderList(stored = [testTask()], showInstitution = true) {
    const api = taskApi(stored);
    const onFiltersChange = vi.fn();
    renderInRouter(
      () => (
        <TaskList
          filters={{ page: 1, status: 'all', sort_by: 'deadline' }}
          onFiltersChange={onFiltersChange}
          scope={{ medical_institution_id: clinic.id }}
          showInstitution={showInstitution}
          emptyText=""
        />
      ),
      { api, paths: ['/crms/$id'] },
    );
    return { api, onFiltersChange };
  }

  it('marks tasks past their deadline, not finished ones or those still due', async () => {
    renderList([
      testTask({ id: testId(1), title: '期限切れの件' }),
      testTask({ id: testId(2), title: '完了済みの件', status: 'finished' }),
      testTask({ id: testId(3), title: 'まだ先の件', deadline: '2099-12-31' }),
    ]);
    const rows = await screen.findAllByTestId('task-row');
    const row = (title: string) => rows.find((r) => r.textContent?.includes(title))!;
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

  it('puts a new status filter into the URL from page 1, and leaves out the institution on its own page', async () => {
    const { onFiltersChange } = renderList([testTask()], false);
    const row = await screen.findByTestId('task-row');
    expect(within(row).queryByRole('link')).not.toBeInTheDocument();
    await userEvent.click(
      within(screen.getByRole('radiogroup', { name: '状況' })).getByRole('radio', { name: '完了' }),
    );
    expect(onFiltersChange).toHaveBeenCalledWith({ status: 'finished', page: 1 });
  });
});
