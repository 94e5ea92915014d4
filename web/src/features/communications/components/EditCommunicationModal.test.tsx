import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Communication } from '@renkei/contracts';
import { describe, expect, it, vi } from 'vitest';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { EditCommunicationModal } from './EditCommunicationModal.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const record: Communication = {
  id: id(10),
  communication_type: 'phone',
  acted_date: '2026-11-20',
  category: null,
  purpose: null,
  story: '紹介の相談',
  email: null,
  attachments: [],
  event_name: null,
  memo: '',
  other_memo: '',
  user: { id: id(30), name: '佐藤' },
  person_in_charge_hospital: null,
  attendee: null,
  is_doctor_attended: false,
  medical_institution: { id: id(9), name: '駿河クリニック' },
  tasks: [],
  comments: [],
  likes: [],
  label_values: [],
  vocs: [],
  created_at: '2026-11-20T01:00:00.000Z',
  updated_at: '2026-11-20T01:00:00.000Z',
  version: 1,
};

function renderModal() {
  const api = {
    listCommunicationLabels: vi.fn(async () => []),
    listOwnDepartments: vi.fn(async () => []),
    listStaffs: vi.fn(async () => [{ id: id(30), name: '佐藤', cs_account: false }]),
    updateCommunication: vi.fn(async () => ({ ...record, version: 2 })),
    getCommunication: vi.fn(async () => record),
  };
  const onClose = vi.fn();
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <EditCommunicationModal communication={record} onClose={onClose} />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return { api, onClose };
}

describe('communication edit dialog', () => {
  it('closes at once when nothing was changed', async () => {
    const { onClose } = renderModal();
    await screen.findByLabelText('内容');
    await userEvent.click(screen.getByRole('button', { name: 'キャンセル' }));
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('asks before closing over changes not saved, and keeps them when the user goes on editing', async () => {
    const { onClose, api } = renderModal();
    const story = await screen.findByLabelText('内容');
    await userEvent.type(story, '。来週折り返し');
    await userEvent.click(screen.getByRole('button', { name: 'キャンセル' }));
    expect(await screen.findByText('保存していない変更があります。変更を破棄して閉じますか？')).toBeInTheDocument();
    expect(onClose).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: '編集を続ける' }));
    expect(screen.getByLabelText('内容')).toHaveValue('紹介の相談。来週折り返し');

    // The × (named for a screen reader) asks the same.
    await userEvent.click(screen.getByRole('button', { name: '閉じる' }));
    await userEvent.click(await screen.findByTestId('confirm-discard-edit'));
    expect(onClose).toHaveBeenCalledTimes(1);
    expect(api.updateCommunication).not.toHaveBeenCalled();
  });

  it('closes without asking once the changes are saved', async () => {
    const { onClose, api } = renderModal();
    await userEvent.type(await screen.findByLabelText('内容'), '。済');
    await userEvent.click(screen.getByRole('button', { name: '保存する' }));
    await waitFor(() => expect(onClose).toHaveBeenCalledTimes(1));
    expect(api.updateCommunication).toHaveBeenCalledTimes(1);
    expect(screen.queryByText('保存していない変更があります。変更を破棄して閉じますか？')).toBeNull();
  });
});
