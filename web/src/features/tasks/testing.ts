import type { Task } from '@renkei/contracts';
import { vi } from 'vitest';

export const testId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export const clinic = { id: testId(9), name: '駿河クリニック' };

/** A task as the list answers it: 駿河クリニック's, 佐藤's, due long ago unless patched. */
export const testTask = (patch: Partial<Task> = {}): Task => ({
  id: testId(40),
  created_at: '2026-11-20T01:00:00.000Z',
  deadline: '2000-01-31',
  title: '資料送付',
  medical_institution: { ...clinic, running_status: 'open', address: '', tel: null, departments: [] },
  status: 'incomplete',
  staff: { id: testId(30), name: '佐藤' },
  communication_id: null,
  version: 2,
  ...patch,
});

/**
 * The task calls over a store of tasks: the list filters as the query service does (status, staff,
 * institution), and a save changes the store, so a refetch after a write shows it.
 */
export function taskApi(stored: Task[]) {
  const byId = new Map(stored.map((t) => [t.id, t]));
  return {
    listTasks: vi.fn(
      async ({
        query,
      }: {
        query: { status?: string; user_id?: string; medical_institution_id?: string; per_page?: number };
      }) => {
        const data = [...byId.values()].filter(
          (t) =>
            (!query.status || query.status === 'all' || t.status === query.status) &&
            (!query.user_id || t.staff?.id === query.user_id) &&
            (!query.medical_institution_id || t.medical_institution?.id === query.medical_institution_id),
        );
        const perPage = query.per_page ?? 20;
        return {
          data: data.slice(0, perPage),
          meta: { total_count: data.length, page: 1, per_page: perPage, total_pages: Math.ceil(data.length / perPage) },
        };
      },
    ),
    updateTask: vi.fn(
      async ({ params, body }: { params: { id: string }; body: { status: Task['status'] }; ifMatch?: number }) => {
        const prev = byId.get(params.id)!;
        const next = { ...prev, status: body.status, version: prev.version + 1 };
        byId.set(params.id, next);
        return next;
      },
    ),
    createTask: vi.fn(async ({ body }: { body: { title: string; deadline: string | null } }) => {
      const created = testTask({ id: testId(41), title: body.title, deadline: body.deadline, version: 0 });
      byId.set(created.id, created);
      return created;
    }),
  };
}
