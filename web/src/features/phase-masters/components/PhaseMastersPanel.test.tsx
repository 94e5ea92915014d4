import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { PhaseMaster } from '@renkei/contracts';
import { listVersion } from '@renkei/contracts/client';
import { Suspense } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { testServices } from '../../../test/render-app.tsx';
import type { PhaseMasterDraft } from '../phase-masters.queries.ts';
import { PhaseMastersPanel } from './PhaseMastersPanel.tsx';

const conflict = '他のユーザーがフェーズを変更しました。再読み込みしてからやり直してください。';
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** A server that keeps the list: ids sent back stay, new entries get the next id. */
function fakeServer(initial: Omit<PhaseMaster, 'order'>[]) {
  let list: PhaseMaster[] = initial.map((p, order) => ({ ...p, order }));
  let next = 100;
  const replace = vi.fn(
    async ({ body, ifMatch }: { body: { phase_masters: PhaseMasterDraft[] }; ifMatch?: string }) => {
      // Like the command service: a save based on another version of the list is refused.
      if (ifMatch !== listVersion(list)) throw new ApiError(409, conflict);
      list = body.phase_masters.map((p, order) => ({
        id: p.id ?? id(next++),
        name: p.name,
        description: p.description,
        order,
      }));
      return list;
    },
  );
  const api = { listPhaseMasters: vi.fn(async () => list), replacePhaseMasters: replace };
  return {
    api,
    replace,
    sent: () => replace.mock.lastCall?.[0].body.phase_masters,
    /** Another owner saves this list. */
    changeByOther: (next: Omit<PhaseMaster, 'order'>[]) => {
      list = next.map((p, order) => ({ ...p, order }));
    },
  };
}

function renderPanel(api: object, canEdit: boolean) {
  const services: AppServices = { ...testServices(), api: api as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <MantineProvider>
      <ServicesProvider value={services}>
        <QueryClientProvider client={client}>
          <Suspense fallback={null}>
            <PhaseMastersPanel canEdit={canEdit} />
          </Suspense>
        </QueryClientProvider>
      </ServicesProvider>
    </MantineProvider>,
  );
}

const row = (name: string) => document.querySelector<HTMLElement>(`tr[data-phase-name="${name}"]`)!;

describe('phase masters', { timeout: 30_000 }, () => {
  it('says what to do when there is none, and adds the first one', async () => {
    const server = fakeServer([]);
    renderPanel(server.api, true);
    expect(await screen.findByTestId('phase-masters-empty')).toHaveTextContent('「フェーズを追加」から');
    await userEvent.click(screen.getByTestId('add-phase'));
    await userEvent.type(await screen.findByTestId('phase-name-input'), '未接触');
    await userEvent.type(screen.getByTestId('phase-description-input'), 'まだ訪問していない');
    await userEvent.click(screen.getByTestId('save-phase'));
    await waitFor(() => expect(row('未接触')).toBeInTheDocument());
    expect(server.sent()).toEqual([{ name: '未接触', description: 'まだ訪問していない' }]);
  });

  it('refuses an empty or duplicate name in Japanese without saving', async () => {
    const server = fakeServer([{ id: id(1), name: 'A定期訪問', description: '' }]);
    renderPanel(server.api, true);
    await userEvent.click(await screen.findByTestId('add-phase'));
    await userEvent.click(await screen.findByTestId('save-phase'));
    expect(await screen.findByText('フェーズ名を入力してください')).toBeInTheDocument();
    // Full-width letters and surrounding spaces do not make another name (the server compares NFKC too).
    await userEvent.type(await screen.findByTestId('phase-name-input'), ' Ａ定期訪問 ');
    await userEvent.click(screen.getByTestId('save-phase'));
    expect(await screen.findByText('このフェーズ名は既に登録されています')).toBeInTheDocument();
    await userEvent.clear(screen.getByTestId('phase-name-input'));
    await userEvent.type(await screen.findByTestId('phase-name-input'), 'あ'.repeat(31));
    await userEvent.click(screen.getByTestId('save-phase'));
    expect(await screen.findByText('フェーズ名は30文字以内で入力してください')).toBeInTheDocument();
    expect(server.replace).not.toHaveBeenCalled();
  });

  it('renames keeping the id, reorders, and deletes only after confirmation', async () => {
    const server = fakeServer([
      { id: id(1), name: '未接触', description: '' },
      { id: id(2), name: '初回訪問済', description: '名刺交換まで' },
    ]);
    renderPanel(server.api, true);
    await waitFor(() => expect(row('初回訪問済')).toBeInTheDocument());

    await userEvent.click(within(row('初回訪問済')).getByRole('button', { name: '編集' }));
    const name = await screen.findByTestId('phase-name-input');
    await userEvent.clear(name);
    await userEvent.type(name, '初回訪問');
    await userEvent.click(screen.getByTestId('save-phase'));
    await waitFor(() => expect(row('初回訪問')).toBeInTheDocument());
    expect(server.sent()).toEqual([
      { id: id(1), name: '未接触', description: '' },
      { id: id(2), name: '初回訪問', description: '名刺交換まで' },
    ]);

    await userEvent.click(screen.getByRole('button', { name: '初回訪問を上へ' }));
    await waitFor(() => expect(server.sent()?.map((p) => p.id)).toEqual([id(2), id(1)]));

    await userEvent.click(within(row('未接触')).getByRole('button', { name: '削除' }));
    const dialog = await screen.findByRole('dialog', { name: 'フェーズを削除' });
    expect(dialog).toHaveTextContent('フェーズが未設定になります');
    expect(server.replace).toHaveBeenCalledTimes(2);
    await userEvent.click(within(dialog).getByTestId('confirm-delete-phase'));
    await waitFor(() => expect(server.sent()).toEqual([{ id: id(2), name: '初回訪問', description: '名刺交換まで' }]));
    await waitFor(() => expect(document.querySelector('tr[data-phase-name="未接触"]')).toBeNull());
  });

  it('keeps the form open with the server 422 message of its row', async () => {
    const server = fakeServer([{ id: id(1), name: '未接触', description: '' }]);
    server.replace.mockRejectedValueOnce(
      new ApiError(422, '入力内容に誤りがあります。', undefined, [
        { field: 'phase_masters.1.description', message: '説明は200文字以内で入力してください' },
      ]),
    );
    renderPanel(server.api, true);
    await userEvent.click(await screen.findByTestId('add-phase'));
    await userEvent.type(await screen.findByTestId('phase-name-input'), '紹介実績あり');
    await userEvent.click(screen.getByTestId('save-phase'));
    expect(await screen.findByText('説明は200文字以内で入力してください')).toBeInTheDocument();
    expect(screen.getByTestId('phase-name-input')).toHaveValue('紹介実績あり');
  });

  it('reloads the list and says so when another owner saved first, without undoing their change', async () => {
    const server = fakeServer([{ id: id(1), name: '未接触', description: '' }]);
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    renderPanel(server.api, true);
    await waitFor(() => expect(row('未接触')).toBeInTheDocument());
    server.changeByOther([
      { id: id(1), name: '未接触', description: '' },
      { id: id(9), name: '紹介実績あり', description: '' },
    ]);
    await userEvent.click(screen.getByTestId('add-phase'));
    await userEvent.type(await screen.findByTestId('phase-name-input'), '定期訪問');
    await userEvent.click(screen.getByTestId('save-phase'));
    await waitFor(() => expect(shown).toHaveBeenCalledWith(conflict));
    await waitFor(() => expect(row('紹介実績あり')).toBeInTheDocument());
    expect(server.replace).toHaveBeenCalledTimes(1);
    shown.mockRestore();
  });

  it('shows members the list without any way to change it', async () => {
    const server = fakeServer([{ id: id(1), name: '未接触', description: 'まだ訪問していない' }]);
    renderPanel(server.api, false);
    await waitFor(() => expect(row('未接触')).toBeInTheDocument());
    expect(screen.getByTestId('phase-masters-read-only')).toHaveTextContent('オーナーのみ');
    expect(screen.getByText('まだ訪問していない')).toBeInTheDocument();
    expect(screen.queryByTestId('add-phase')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: '編集' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: '削除' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: '未接触を下へ' })).not.toBeInTheDocument();
  });
});
