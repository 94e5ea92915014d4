import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { CommunicationLabel } from '@renkei/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, networkSubCode } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices, testUser } from '../../../test/render-app.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { draftKey } from '../communication-draft.ts';
import { CommunicationForm } from './CommunicationForm.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const label = (patch: Partial<CommunicationLabel>): CommunicationLabel => ({
  id: id(1),
  name: '面談相手',
  communication_type: 'visit',
  component_type: 'select',
  order: 0,
  description: '',
  selections: [{ id: id(2), label: '院長', order: 0 }],
  is_required: true,
  version: 0,
  ...patch,
});

const account = testUser();

afterEach(() => localStorage.clear());

function renderForm(create: (args: unknown) => Promise<unknown>, onSaved: (id: string) => void = () => {}) {
  const api = {
    listCommunicationLabels: vi.fn(async () => [
      label({}),
      label({ id: id(3), name: '電話の用件', communication_type: 'phone', component_type: 'text', selections: [] }),
    ]),
    listStaffs: vi.fn(async () => []),
    listOwnDepartments: vi.fn(async () => []),
    createForMedicalInstitution: vi.fn(create),
  };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  client.setQueryData(currentUserQueries.detail(services.api).queryKey, account);
  const view = render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <CommunicationForm institution={{ id: id(9), name: '駿河クリニック' }} onSaved={onSaved} />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return Object.assign(api, { unmount: view.unmount });
}

describe('communication form', () => {
  it("shows the type's own labels and puts the API's 422 messages on their fields", async () => {
    const api = renderForm(async () => {
      throw new ApiError(422, '入力内容に誤りがあります。', undefined, [
        { field: 'label_values', message: '「面談相手」を入力してください' },
        { field: 'tasks.0.title', message: 'タスクのタイトルを入力してください' },
      ]);
    });
    expect((await screen.findAllByLabelText(/面談相手/)).length).toBeGreaterThan(0);
    expect(screen.queryAllByLabelText(/電話の用件/)).toHaveLength(0);
    await userEvent.click(screen.getByRole('button', { name: 'タスクを追加' }));
    await userEvent.click(screen.getByRole('button', { name: '記録する' }));
    expect(await screen.findByText('「面談相手」を入力してください')).toBeInTheDocument();
    expect(screen.getByText('タスクのタイトルを入力してください')).toBeInTheDocument();
    const first = api.createForMedicalInstitution.mock.calls[0]![0] as { idempotencyKey: string; params: object };
    expect(first.params).toEqual({ id: id(9) });
    // A second submit of the same form is the same request: the same Idempotency-Key.
    await userEvent.click(screen.getByRole('button', { name: '記録する' }));
    const second = api.createForMedicalInstitution.mock.calls[1]![0] as { idempotencyKey: string };
    expect(second.idempotencyKey).toBe(first.idempotencyKey);
  });

  it('keeps a record sent without a network on the device and sends it once when the network returns', async () => {
    const unreachable = new ApiError(500, 'サーバーでエラーが発生しました', networkSubCode);
    let online = false;
    const onSaved = vi.fn();
    const api = renderForm(async () => {
      if (!online) throw unreachable;
      return { id: id(20), medical_institution: { id: id(9) } };
    }, onSaved);
    await userEvent.type(await screen.findByLabelText('内容'), '院長と面談');
    await userEvent.click(screen.getByRole('button', { name: '記録する' }));
    expect(await screen.findByTestId('communication-pending')).toBeInTheDocument();
    const key = draftKey(account.id, id(9));
    expect(JSON.parse(localStorage.getItem(key)!)).toMatchObject({ pending: true, values: { story: '院長と面談' } });
    expect(onSaved).not.toHaveBeenCalled();

    online = true;
    act(() => void window.dispatchEvent(new Event('online')));
    await waitFor(() => expect(onSaved).toHaveBeenCalledTimes(1));
    const keys = api.createForMedicalInstitution.mock.calls.map(
      (c) => (c[0] as { idempotencyKey: string }).idempotencyKey,
    );
    expect(new Set(keys).size).toBe(1);
    expect(localStorage.getItem(key)).toBeNull();
  });

  it('restores what was typed after the form was closed, and can discard it', async () => {
    const first = renderForm(async () => ({}));
    await userEvent.type(await screen.findByLabelText('内容'), '途中まで入力');
    first.unmount();
    renderForm(async () => ({}));
    expect(await screen.findByTestId('communication-draft-restored')).toBeInTheDocument();
    expect(screen.getByLabelText('内容')).toHaveValue('途中まで入力');
    await userEvent.click(screen.getByRole('button', { name: '破棄して新しく入力' }));
    expect(screen.getByLabelText('内容')).toHaveValue('');
    expect(localStorage.getItem(draftKey(account.id, id(9)))).toBeNull();
  });
});
