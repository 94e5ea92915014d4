import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { CommunicationLabel } from '@renkei/contracts';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
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

function renderForm(create: (args: unknown) => Promise<unknown>) {
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
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <CommunicationForm institution={{ id: id(9), name: '駿河クリニック' }} onSaved={() => {}} />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return api;
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
});
