import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { OwnDepartment } from '@renkei/contracts';
import { ownDepartmentsVersion } from '@renkei/contracts/client';
import { Suspense } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { testServices } from '../../../test/render-app.tsx';
import type { OwnDepartmentDraft } from '../own-departments.queries.ts';
import { OwnDepartmentsPanel, ownDepartmentsConflictMessage } from './OwnDepartmentsPanel.tsx';

const serverConflict = '他のユーザーが自院の診療科を変更しました。再読み込みしてからやり直してください。';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const masters = [
  { id: '01', name: '内科' },
  { id: '10', name: '外科' },
  { id: '13', name: '整形外科' },
];

/** A server that keeps the list: ids sent back stay, new entries get the next id. */
function fakeServer(initial: Omit<OwnDepartment, 'order'>[]) {
  let list: OwnDepartment[] = initial.map((d, order) => ({ ...d, order }));
  let next = 100;
  const replace = vi.fn(
    async ({ body, ifMatch }: { body: { own_departments: OwnDepartmentDraft[] }; ifMatch?: string }) => {
      // Like the command service: a save based on another version of the list is refused.
      if (ifMatch !== ownDepartmentsVersion(list)) throw new ApiError(409, serverConflict);
      list = body.own_departments.map((d, order) => ({
        id: d.id ?? id(next++),
        name: d.name,
        department_id: d.department_id,
        order,
      }));
      return list;
    },
  );
  const api = {
    listOwnDepartments: vi.fn(async () => list),
    replaceOwnDepartments: replace,
    listDepartments: vi.fn(async () => masters),
  };
  return {
    api,
    replace,
    sent: () => replace.mock.lastCall?.[0].body.own_departments,
    /** Another owner saves this list. */
    changeByOther: (next: Omit<OwnDepartment, 'order'>[]) => {
      list = next.map((d, order) => ({ ...d, order }));
    },
  };
}

function renderPanel(api: object, canEdit: boolean) {
  const services: AppServices = { ...testServices(), api: api as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const utils = render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <QueryClientProvider client={client}>
          <Suspense fallback={null}>
            <OwnDepartmentsPanel canEdit={canEdit} />
          </Suspense>
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
  return { ...utils, client };
}

const row = (name: string) => document.querySelector<HTMLElement>(`tr[data-own-department-name="${name}"]`)!;
const names = () =>
  [...document.querySelectorAll<HTMLElement>('tr[data-own-department-name]')].map((r) => r.dataset.ownDepartmentName);

describe('own departments', { timeout: 30_000 }, () => {
  it('says what to do when there is none, and adds the first one with its master department', async () => {
    const server = fakeServer([]);
    renderPanel(server.api, true);
    expect(await screen.findByTestId('own-departments-empty')).toHaveTextContent(
      '自院の診療科はまだ登録されていません。「新規作成」から追加すると、紹介データの紹介先診療科がこの名前で対応付けられます。',
    );
    expect(screen.getByTestId('own-departments-matching')).toHaveTextContent(
      '取り込み済みで「未設定」の行も名前で対応付けられ',
    );
    await userEvent.click(screen.getByTestId('add-own-department'));
    await userEvent.type(await screen.findByTestId('own-department-name-input'), '循環器内科');
    // The master select is searchable: typing narrows the choices.
    await userEvent.type(screen.getByTestId('own-department-master-select'), '内');
    await userEvent.click(await screen.findByRole('option', { name: '内科（01）', hidden: true }));
    await userEvent.click(screen.getByTestId('save-own-department'));
    await waitFor(() => expect(row('循環器内科')).toBeInTheDocument());
    expect(server.sent()).toEqual([{ name: '循環器内科', department_id: '01' }]);
    // Sent against the version of the empty list it was based on.
    expect(server.replace.mock.lastCall?.[0].ifMatch).toBe(ownDepartmentsVersion([]));
    expect(within(row('循環器内科')).getByText('内科')).toBeInTheDocument();
  });

  it('refuses an empty, too long or duplicate name in Japanese without saving', async () => {
    const server = fakeServer([{ id: id(1), name: 'ＭＲＩ外来', department_id: null }]);
    renderPanel(server.api, true);
    await userEvent.click(await screen.findByTestId('add-own-department'));
    await userEvent.click(await screen.findByTestId('save-own-department'));
    expect(await screen.findByText('診療科名を入力してください')).toBeInTheDocument();
    // Half-width letters and surrounding spaces do not make another name (the server and uploads compare NFKC).
    await userEvent.type(await screen.findByTestId('own-department-name-input'), ' MRI外来 ');
    await userEvent.click(screen.getByTestId('save-own-department'));
    expect(await screen.findByText('この診療科名は既に登録されています')).toBeInTheDocument();
    await userEvent.clear(screen.getByTestId('own-department-name-input'));
    await userEvent.type(screen.getByTestId('own-department-name-input'), 'あ'.repeat(51));
    await userEvent.click(screen.getByTestId('save-own-department'));
    expect(await screen.findByText('診療科名は50文字以内で入力してください')).toBeInTheDocument();
    expect(server.replace).not.toHaveBeenCalled();
  });

  it('renames keeping the id, reorders, and deletes only after confirmation, always sending the whole list', async () => {
    const server = fakeServer([
      { id: id(1), name: '内科', department_id: '01' },
      { id: id(2), name: '整形', department_id: null },
      { id: id(3), name: '外科', department_id: '10' },
    ]);
    renderPanel(server.api, true);
    await waitFor(() => expect(row('整形')).toBeInTheDocument());
    expect(within(row('整形')).getByText('—')).toBeInTheDocument();

    await userEvent.click(within(row('整形')).getByRole('button', { name: '編集' }));
    const name = await screen.findByTestId('own-department-name-input');
    expect(name).toHaveValue('整形');
    await userEvent.clear(name);
    await userEvent.type(name, '整形外科');
    await userEvent.click(screen.getByTestId('own-department-master-select'));
    await userEvent.click(await screen.findByRole('option', { name: '整形外科（13）', hidden: true }));
    await userEvent.click(screen.getByTestId('save-own-department'));
    await waitFor(() => expect(row('整形外科')).toBeInTheDocument());
    expect(server.sent()).toEqual([
      { id: id(1), name: '内科', department_id: '01' },
      { id: id(2), name: '整形外科', department_id: '13' },
      { id: id(3), name: '外科', department_id: '10' },
    ]);

    await userEvent.click(screen.getByRole('button', { name: '外科を上へ' }));
    await waitFor(() => expect(server.sent()?.map((d) => d.id)).toEqual([id(1), id(3), id(2)]));
    await waitFor(() => expect(names()).toEqual(['内科', '外科', '整形外科']));
    // Based on the list as the rename left it.
    expect(server.replace.mock.lastCall?.[0].ifMatch).toBe(
      ownDepartmentsVersion([
        { id: id(1), name: '内科', department_id: '01' },
        { id: id(2), name: '整形外科', department_id: '13' },
        { id: id(3), name: '外科', department_id: '10' },
      ]),
    );

    await userEvent.click(within(row('内科')).getByRole('button', { name: '削除' }));
    const dialog = await screen.findByRole('dialog', { name: '自院診療科を削除' });
    expect(dialog).toHaveTextContent('「未設定」として集計されます');
    expect(dialog).toHaveTextContent('ラベルの値は空欄');
    expect(dialog).toHaveTextContent('アカウントの所属診療科');
    expect(server.replace).toHaveBeenCalledTimes(2);
    await userEvent.click(within(dialog).getByTestId('confirm-delete-own-department'));
    await waitFor(() =>
      expect(server.sent()).toEqual([
        { id: id(3), name: '外科', department_id: '10' },
        { id: id(2), name: '整形外科', department_id: '13' },
      ]),
    );
    await waitFor(() => expect(names()).toEqual(['外科', '整形外科']));
  });

  it('keeps the form open with the server 422 message of its row', async () => {
    const server = fakeServer([{ id: id(1), name: '内科', department_id: null }]);
    server.replace.mockRejectedValueOnce(
      new ApiError(422, '入力内容に誤りがあります。', undefined, [
        { field: 'own_departments.1.name', message: '「眼科」が重複しています' },
      ]),
    );
    renderPanel(server.api, true);
    await userEvent.click(await screen.findByTestId('add-own-department'));
    await userEvent.type(await screen.findByTestId('own-department-name-input'), '眼科');
    await userEvent.click(screen.getByTestId('save-own-department'));
    expect(await screen.findByText('「眼科」が重複しています')).toBeInTheDocument();
    expect(screen.getByTestId('own-department-name-input')).toHaveValue('眼科');
  });

  it('reloads the list and says so when another owner saved first, without undoing their change', async () => {
    const server = fakeServer([{ id: id(1), name: '内科', department_id: null }]);
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    renderPanel(server.api, true);
    await waitFor(() => expect(row('内科')).toBeInTheDocument());
    server.changeByOther([
      { id: id(1), name: '内科', department_id: null },
      { id: id(9), name: '小児科', department_id: null },
    ]);
    await userEvent.click(screen.getByTestId('add-own-department'));
    await userEvent.type(await screen.findByTestId('own-department-name-input'), '眼科');
    await userEvent.click(screen.getByTestId('save-own-department'));
    await waitFor(() => expect(shown).toHaveBeenCalledWith(ownDepartmentsConflictMessage));
    await waitFor(() => expect(row('小児科')).toBeInTheDocument());
    expect(document.querySelector('tr[data-own-department-name="眼科"]')).toBeNull();
    expect(server.replace).toHaveBeenCalledTimes(1);
    shown.mockRestore();
  });

  it('refreshes the analysis figures, which name own departments on the server, after a save', async () => {
    const server = fakeServer([{ id: id(1), name: '内科', department_id: null }]);
    const { client } = renderPanel(server.api, true);
    const invalidated = vi.spyOn(client, 'invalidateQueries');
    await waitFor(() => expect(row('内科')).toBeInTheDocument());
    await userEvent.click(within(row('内科')).getByRole('button', { name: '編集' }));
    const name = await screen.findByTestId('own-department-name-input');
    await userEvent.clear(name);
    await userEvent.type(name, '総合内科');
    await userEvent.click(screen.getByTestId('save-own-department'));
    await waitFor(() => expect(row('総合内科')).toBeInTheDocument());
    const keys = invalidated.mock.calls.map(([filters]) => filters?.queryKey);
    expect(keys).toContainEqual(['reference-data', 'own-departments']);
    expect(keys).toContainEqual(['data-analysis', 'figures']);
  });

  it('shows members the list without any way to change it', async () => {
    const server = fakeServer([{ id: id(1), name: '内科', department_id: '01' }]);
    renderPanel(server.api, false);
    await waitFor(() => expect(row('内科')).toBeInTheDocument());
    expect(screen.getByTestId('own-departments-read-only')).toHaveTextContent('オーナーのみ');
    await waitFor(() => expect(within(row('内科')).getAllByText('内科')).toHaveLength(2));
    expect(screen.queryByTestId('add-own-department')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: '編集' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: '削除' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: '内科を下へ' })).not.toBeInTheDocument();
  });

  it('tells members with an empty list that an owner registers them', async () => {
    const server = fakeServer([]);
    renderPanel(server.api, false);
    expect(await screen.findByTestId('own-departments-empty')).toHaveTextContent('オーナーが登録すると');
    expect(screen.queryByTestId('add-own-department')).not.toBeInTheDocument();
  });
});
