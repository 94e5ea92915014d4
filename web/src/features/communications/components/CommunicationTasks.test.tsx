import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Communication, Task } from '@renkei/contracts';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { CommunicationTasks } from './CommunicationTasks.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const institution = { id: id(9), name: '駿河クリニック' };
const task = (patch: Partial<Task> = {}): Task => ({
  id: id(40),
  created_at: '2026-11-20T01:00:00.000Z',
  deadline: '2026-11-27',
  title: '資料送付',
  medical_institution: { ...institution, running_status: 'open', address: '', tel: null, departments: [] },
  status: 'incomplete',
  staff: { id: id(30), name: '佐藤' },
  communication_id: id(10),
  version: 2,
  ...patch,
});
const record = (tasks: Task[]): Communication =>
  ({
    id: id(10),
    medical_institution: institution,
    tasks: tasks.map((t) => ({ id: t.id, title: t.title, status: t.status, deadline: t.deadline, staff: t.staff })),
  }) as Communication;

function renderTasks(stored: Task[], accountId?: string) {
  const byId = new Map(stored.map((t) => [t.id, t]));
  const api = {
    listStaffs: vi.fn(async () => [
      { id: id(30), name: '佐藤' },
      { id: id(31), name: '鈴木' },
    ]),
    getTask: vi.fn(async ({ params }: { params: { id: string } }) => {
      const t = byId.get(params.id);
      if (!t) throw new ApiError(404, '見つかりません');
      return t;
    }),
    createTask: vi.fn(async ({ body }: { body: Record<string, unknown> }) => {
      const created = task({ id: id(41), title: body.title as string, deadline: null, staff: null, version: 0 });
      byId.set(created.id, created);
      return created;
    }),
    updateTask: vi.fn(async ({ params, body }: { params: { id: string }; body: Partial<Task> }) => {
      const next = { ...byId.get(params.id)!, ...body, version: byId.get(params.id)!.version + 1 } as Task;
      byId.set(params.id, next);
      return next;
    }),
    deleteTask: vi.fn(async ({ params }: { params: { id: string } }) => {
      byId.delete(params.id);
      return null;
    }),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  if (accountId) client.setQueryData(currentUserQueries.detail(services.api).queryKey, { id: accountId } as never);
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <CommunicationTasks communication={record(stored)} />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return api;
}

describe('communication tasks in the edit form', () => {
  it('shows the record’s tasks as stored and completes one with its own If-Match', async () => {
    const api = renderTasks([task()]);
    const row = await screen.findByTestId('communication-task');
    expect(within(row).getByLabelText('タスク')).toHaveValue('資料送付');
    expect(within(row).getByLabelText('期限')).toHaveValue('2026-11-27');
    await userEvent.click(within(row).getByRole('checkbox', { name: '資料送付を完了にする' }));
    await waitFor(() => expect(api.updateTask).toHaveBeenCalledTimes(1));
    expect(api.updateTask.mock.calls[0]![0]).toMatchObject({
      params: { id: id(40) },
      ifMatch: 2,
      body: {
        title: '資料送付',
        deadline: '2026-11-27',
        staff_id: id(30),
        medical_institution_id: id(9),
        status: 'finished',
      },
    });
    // The row shows the saved task (version 3) afterwards.
    await waitFor(() => expect(screen.getByRole('checkbox', { name: '資料送付を完了にする' })).toBeChecked());
  });

  it('edits a task’s title and saves it, then deletes it', async () => {
    const api = renderTasks([task()]);
    const title = await screen.findByLabelText('タスク');
    await userEvent.clear(title);
    await userEvent.type(title, '見積書を送る');
    await userEvent.click(screen.getByRole('button', { name: 'タスクを保存' }));
    await waitFor(() => expect(api.updateTask).toHaveBeenCalledTimes(1));
    expect(api.updateTask.mock.calls[0]![0]).toMatchObject({
      ifMatch: 2,
      body: { title: '見積書を送る', status: 'incomplete' },
    });
    await waitFor(() => expect(screen.queryByRole('button', { name: 'タスクを保存' })).not.toBeInTheDocument());
    await userEvent.click(screen.getByRole('button', { name: '見積書を送るを削除' }));
    await waitFor(() => expect(api.deleteTask).toHaveBeenCalledTimes(1));
    expect(api.deleteTask.mock.calls[0]![0]).toMatchObject({ params: { id: id(40) }, ifMatch: 3 });
    await waitFor(() => expect(screen.queryByTestId('communication-task')).not.toBeInTheDocument());
  });

  it('adds a task linked to the record and its institution, and shows a 422 on its field', async () => {
    const api = renderTasks([]);
    api.createTask.mockRejectedValueOnce(
      new ApiError(422, '入力内容を確認してください', undefined, [
        { field: 'deadline', message: '期限はYYYY-MM-DD形式で入力してください' },
      ]),
    );
    await userEvent.type(screen.getByLabelText('新しいタスク'), '再訪問');
    await userEvent.click(screen.getByRole('button', { name: 'タスクを追加' }));
    expect(await screen.findByText('期限はYYYY-MM-DD形式で入力してください')).toBeInTheDocument();
    expect(screen.queryByTestId('communication-task')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'タスクを追加' }));
    const row = await screen.findByTestId('communication-task');
    expect(within(row).getByLabelText('タスク')).toHaveValue('再訪問');
    expect(api.createTask.mock.calls[1]![0]).toMatchObject({
      body: { title: '再訪問', communication_id: id(10), medical_institution_id: id(9), deadline: null },
    });
    expect(screen.getByLabelText('新しいタスク')).toHaveValue('');
  });

  it('starts each new task as the writer’s own', async () => {
    const api = renderTasks([], id(31));
    const staff = await screen.findByLabelText('担当者', { selector: 'input' });
    await waitFor(() => expect(staff).toHaveValue('鈴木'));
    await userEvent.type(screen.getByLabelText('新しいタスク'), '再訪問');
    await userEvent.click(screen.getByRole('button', { name: 'タスクを追加' }));
    await waitFor(() => expect(api.createTask).toHaveBeenCalledTimes(1));
    expect(api.createTask.mock.calls[0]![0]).toMatchObject({ body: { title: '再訪問', staff_id: id(31) } });
    // After an add the next task starts as the writer's again.
    await waitFor(() => expect(screen.getByLabelText('新しいタスク')).toHaveValue(''));
    expect(screen.getAllByLabelText('担当者', { selector: 'input' }).at(-1)).toHaveValue('鈴木');
  });
});
