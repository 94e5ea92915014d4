import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { testUser } from '../../../test/render-app.tsx';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { clinic, taskApi, testId, testTask } from '../testing.ts';
import { InstitutionOpenTasks } from './InstitutionOpenTasks.tsx';

const withTasks = testUser({ features: ['medical_institutions_search', 'tasks'] });

const seven = Array.from({ length: 7 }, (_, i) =>
  testTask({ id: testId(i + 1), title: `タスク${i + 1}`, deadline: i === 0 ? '2000-01-31' : `2099-0${i + 1}-01` }),
);

function renderCard(stored = seven, compact = false, user = withTasks) {
  const api = taskApi(stored);
  const view = renderInRouter(() => <InstitutionOpenTasks id={clinic.id} compact={compact} />, {
    api,
    user,
    paths: ['/crms/$id/tasks'],
  });
  return { api, ...view };
}

describe("the institution's open tasks card", () => {
  it('shows the first five to do by deadline, the overdue one in red, and links to all of them', async () => {
    const { api } = renderCard();
    const card = await screen.findByTestId('institution-open-tasks');
    expect(within(card).getByText('未完了のタスク（7件）')).toBeInTheDocument();
    expect(api.listTasks).toHaveBeenCalledWith(
      expect.objectContaining({
        query: {
          medical_institution_id: clinic.id,
          status: 'incomplete',
          sort_by: 'deadline',
          sort: 'asc',
          page: 1,
          per_page: 5,
        },
      }),
    );
    const rows = within(card).getAllByTestId('institution-open-task');
    expect(rows).toHaveLength(5);
    expect(within(rows[0]!).getByText('期限切れ')).toBeInTheDocument();
    expect(within(rows[0]!).getByText('期限 2000/01/31')).toHaveStyle({ color: 'var(--mantine-color-red-text)' });
    expect(within(rows[1]!).queryByText('期限切れ')).not.toBeInTheDocument();
    expect(within(card).getByRole('link', { name: 'すべて見る' })).toHaveAttribute(
      'href',
      `/app/crms/${clinic.id}/tasks?page=1&status=incomplete&sort_by=deadline`,
    );
  });

  it('completes a task in one click; it leaves the card', async () => {
    const { api } = renderCard([testTask()]);
    const card = await screen.findByTestId('institution-open-tasks');
    await userEvent.click(within(card).getByRole('checkbox', { name: '資料送付を完了にする' }));
    await waitFor(() =>
      expect(api.updateTask).toHaveBeenCalledWith(
        expect.objectContaining({ ifMatch: 2, body: expect.objectContaining({ status: 'finished' }) }),
      ),
    );
    expect(await within(card).findByText(/未完了のタスクはありません。/)).toBeInTheDocument();
    expect(within(card).getByText('未完了のタスク（0件）')).toBeInTheDocument();
  });

  it('completes a task with a tap beside the small box: the 44 px square around it takes the tap (a phone)', async () => {
    const { api } = renderCard([testTask()]);
    const card = await screen.findByTestId('institution-open-tasks');
    const box = within(card).getByRole('checkbox', { name: '資料送付を完了にする' });
    const target = box.closest('label');
    expect(target).toHaveStyle({ width: '44px', height: '44px' });
    await userEvent.click(target!);
    await waitFor(() =>
      expect(api.updateTask).toHaveBeenCalledWith(
        expect.objectContaining({ body: expect.objectContaining({ status: 'finished' }) }),
      ),
    );
  });

  it('prints as plain text on the partner chart: no links, no checkboxes, at most five rows', async () => {
    renderCard(seven, true);
    const block = await screen.findByTestId('institution-open-tasks');
    expect(within(block).queryByRole('link')).not.toBeInTheDocument();
    expect(within(block).queryByRole('checkbox')).not.toBeInTheDocument();
    expect(within(block).queryByRole('button')).not.toBeInTheDocument();
    expect(within(block).getByText(/2000\/01\/31（期限切れ） タスク1（担当 佐藤）/)).toBeInTheDocument();
    expect(within(block).queryByText(/タスク6/)).not.toBeInTheDocument();
    expect(within(block).getByText('ほか 2件')).toBeInTheDocument();
  });

  it('says なし on the partner chart when nothing is to do', async () => {
    renderCard([], true);
    expect(await screen.findByTestId('institution-open-tasks')).toHaveTextContent(/^なし$/);
  });

  it('shows nothing, and asks nothing, where the tenant does not have tasks', async () => {
    const { api, router } = renderCard(seven, false, testUser({ features: ['medical_institutions_search'] }));
    await waitFor(() => expect(router.state.status).toBe('idle'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(screen.queryByTestId('institution-open-tasks')).not.toBeInTheDocument();
    expect(api.listTasks).not.toHaveBeenCalled();
  });
});
