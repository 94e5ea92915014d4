import type { Task } from '@renkei/contracts';
import { vi } from 'vitest';
import { ApiError } from '../../api/api-errors.ts';

export const testId = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export const clinic = { id: testId(9), name: '駿河クリニック' };
export const hospital = { id: testId(10), name: '富士見病院' };

const institutionOf = (i: { id: string; name: string }) => ({
  ...i,
  running_status: 'open' as const,
  address: '',
  tel: null,
  departments: [],
});

/** A task as the list answers it: 駿河クリニック's, 佐藤's, due long ago unless patched. */
export const testTask = (patch: Partial<Task> = {}): Task => ({
  id: testId(40),
  created_at: '2026-11-20T01:00:00.000Z',
  deadline: '2000-01-31',
  title: '資料送付',
  medical_institution: institutionOf(clinic),
  status: 'incomplete',
  staff: { id: testId(30), name: '佐藤' },
  communication_id: null,
  version: 2,
  ...patch,
});

interface TaskBody {
  title: string;
  deadline: string | null;
  staff_id?: string | null;
  medical_institution_id?: string | null;
  status?: Task['status'];
}

const staffs = [
  { id: testId(30), name: '佐藤' },
  { id: testId(31), name: '鈴木' },
];
const institutions = [clinic, hospital];
const stale = () => new ApiError(409, 'このタスクは他のユーザーが更新しました');

/**
 * The task calls over a store of tasks: the list filters as the query service does (status, staff,
 * institution); a save or delete over an old version (If-Match) is a 409, as the command service
 * answers, and a write changes the store, so a refetch after it shows it. The staff, the institution
 * search (by a part of the name) and one communication (`getCommunication`) are there for the forms.
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
      async ({ params, body, ifMatch }: { params: { id: string }; body: TaskBody; ifMatch?: number }) => {
        const prev = byId.get(params.id);
        if (!prev) throw new ApiError(404, 'タスクが見つかりません');
        if (ifMatch !== prev.version) throw stale();
        const institution = institutions.find((i) => i.id === body.medical_institution_id);
        const next: Task = {
          ...prev,
          title: body.title,
          deadline: body.deadline,
          staff: staffs.find((s) => s.id === body.staff_id) ?? null,
          medical_institution: institution ? institutionOf(institution) : null,
          status: body.status ?? prev.status,
          version: prev.version + 1,
        };
        byId.set(params.id, next);
        return next;
      },
    ),
    deleteTask: vi.fn(async ({ params, ifMatch }: { params: { id: string }; ifMatch?: number }) => {
      const prev = byId.get(params.id);
      if (!prev) throw new ApiError(404, 'タスクが見つかりません');
      if (ifMatch !== prev.version) throw stale();
      byId.delete(params.id);
    }),
    createTask: vi.fn(async ({ body }: { body: TaskBody }) => {
      const institution = institutions.find((i) => i.id === body.medical_institution_id);
      const created = testTask({
        id: testId(41),
        title: body.title,
        deadline: body.deadline,
        medical_institution: institution ? institutionOf(institution) : null,
        staff: staffs.find((s) => s.id === body.staff_id) ?? null,
        version: 0,
      });
      byId.set(created.id, created);
      return created;
    }),
    listStaffs: vi.fn(async () => staffs),
    searchMedicalInstitutions: vi.fn(async ({ body }: { body: { keyword?: string } }) => {
      const data = institutions.filter((i) => body.keyword && i.name.includes(body.keyword));
      return { data, meta: { total_count: data.length, page: 1, per_page: 20, total_pages: 1 } };
    }),
    getSummary: vi.fn(async ({ params }: { params: { id: string } }) => {
      const found = institutions.find((i) => i.id === params.id);
      if (!found) throw new ApiError(404, '医療機関が見つかりません');
      return found;
    }),
    getCommunication: vi.fn(async ({ params }: { params: { id: string } }) => ({
      id: params.id,
      acted_date: '2026-10-05',
      medical_institution: clinic,
    })),
    /** Someone else saves the task meanwhile: the version the screen holds is now old. */
    touch(id: string) {
      const prev = byId.get(id)!;
      byId.set(id, { ...prev, title: `${prev.title}（更新済み）`, version: prev.version + 1 });
    },
  };
}
