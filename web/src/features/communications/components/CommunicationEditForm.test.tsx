import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Communication, CommunicationLabel } from '@renkei/contracts';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { testServices } from '../../../test/render-app.tsx';
import { CommunicationEditForm } from './CommunicationEditForm.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const label: CommunicationLabel = {
  id: id(1),
  name: '面談相手',
  communication_type: 'visit',
  component_type: 'select',
  order: 0,
  description: '',
  selections: [
    { id: id(2), label: '院長', order: 0 },
    { id: id(3), label: '事務長', order: 1 },
  ],
  is_required: true,
  version: 0,
};
const value = (selectionId: string) => ({
  label_id: id(1),
  text_value: null,
  integer_value: null,
  date_value: null,
  time_value: null,
  selection_id: selectionId,
  selection_ids: [],
  own_department_id: null,
  area_id: null,
});
const record = (patch: Partial<Communication> = {}): Communication => ({
  id: id(10),
  communication_type: 'visit',
  acted_date: '2026-11-20',
  category: '定期',
  purpose: null,
  story: '院長と面談',
  email: null,
  attachments: [{ id: id(20), url: '/files/x', filename: '名刺.pdf' }],
  event_name: null,
  memo: '',
  other_memo: '別メモ',
  user: { id: id(30), name: '佐藤' },
  person_in_charge_hospital: null,
  attendee: '田中',
  is_doctor_attended: true,
  medical_institution: { id: id(9), name: '駿河クリニック' },
  tasks: [],
  comments: [],
  likes: [],
  label_values: [value(id(2))],
  vocs: [],
  created_at: '2026-11-20T01:00:00.000Z',
  updated_at: '2026-11-20T01:00:00.000Z',
  version: 1,
  ...patch,
});

function renderForm(update: (args: unknown) => Promise<unknown>, latest: Communication = record()) {
  const api = {
    listCommunicationLabels: vi.fn(async () => [label]),
    listOwnDepartments: vi.fn(async () => []),
    listStaffs: vi.fn(async () => [{ id: id(31), name: '鈴木', cs_account: false }]),
    updateCommunication: vi.fn(update),
    getCommunication: vi.fn(async () => latest),
  };
  const onSaved = vi.fn();
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <CommunicationEditForm communication={record()} onSaved={onSaved} onCancel={() => {}} />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return Object.assign(api, { onSaved });
}

interface UpdateCall {
  params: { id: string };
  ifMatch: number;
  body: Record<string, unknown>;
}

describe('communication edit form', () => {
  it('saves every field with If-Match, as edited, and removes an attachment', async () => {
    const api = renderForm(async () => record({ version: 2 }));
    // The record's label value is shown in its select.
    expect(await screen.findByDisplayValue('院長')).toBeInTheDocument();
    // Its own fields, filled with the record's values; who acted is shown though no longer listed.
    expect(screen.getByLabelText('カテゴリ')).toHaveValue('定期');
    expect(screen.getByLabelText('その他メモ')).toHaveValue('別メモ');
    expect(screen.getByLabelText(/同行者/)).toHaveValue('田中');
    expect(screen.getByLabelText('活動した担当者', { selector: 'input' })).toHaveValue('佐藤');
    const story = screen.getByLabelText('内容');
    await userEvent.clear(story);
    await userEvent.type(story, '事務長と面談');
    await userEvent.clear(screen.getByLabelText('カテゴリ'));
    await userEvent.type(screen.getByLabelText('カテゴリ'), '臨時');
    await userEvent.type(screen.getByLabelText('目的'), '新任医師の紹介');
    await userEvent.clear(screen.getByLabelText(/同行者/));
    const actor = screen.getByLabelText('活動した担当者', { selector: 'input' });
    await userEvent.click(actor);
    // The tasks' staff selects offer the same names: the option of this select's own list.
    const list = await waitFor(() => document.getElementById(actor.getAttribute('aria-controls') ?? '')!);
    await userEvent.click(within(list).getByRole('option', { name: '鈴木', hidden: true }));
    await userEvent.click(screen.getByRole('button', { name: '名刺.pdfを外す' }));
    await userEvent.click(screen.getByRole('button', { name: '保存する' }));
    await waitFor(() => expect(api.onSaved).toHaveBeenCalled());
    const call = api.updateCommunication.mock.calls[0]![0] as UpdateCall;
    expect(call.params).toEqual({ id: id(10) });
    expect(call.ifMatch).toBe(1);
    expect(call.body).toMatchObject({
      communication_type: 'visit',
      acted_date: '2026-11-20',
      story: '事務長と面談',
      is_doctor_attended: true,
      attachment_ids: [],
      label_values: [value(id(2))],
      // The edited values, not the record's old ones; untouched ones as the record has them.
      category: '臨時',
      purpose: '新任医師の紹介',
      attendee: null,
      user_id: id(31),
      other_memo: '別メモ',
    });
  });

  it('keeps a label value changed in this edit when another type is picked and the first one again', async () => {
    const api = renderForm(async () => record({ version: 2 }));
    const meeting = await screen.findByDisplayValue('院長');
    await userEvent.click(meeting);
    await userEvent.click(await screen.findByRole('option', { name: '事務長', hidden: true }));
    const pickType = async (name: string) => {
      await userEvent.click(screen.getByLabelText('種別', { selector: 'input' }));
      await userEvent.click(await screen.findByRole('option', { name, hidden: true }));
    };
    await pickType('電話');
    await waitFor(() => expect(screen.queryByLabelText(/面談相手/, { selector: 'input' })).toBeNull());
    await pickType('訪問');
    expect(await screen.findByLabelText(/面談相手/, { selector: 'input' })).toHaveValue('事務長');
    await userEvent.click(screen.getByRole('button', { name: '保存する' }));
    await waitFor(() => expect(api.onSaved).toHaveBeenCalled());
    expect((api.updateCommunication.mock.calls[0]![0] as UpdateCall).body).toMatchObject({
      label_values: [{ label_id: id(1), selection_id: id(3) }],
    });
  });

  it('on a stale edit (409) keeps what was typed, takes the latest values of untouched fields and saves over the new version', async () => {
    let calls = 0;
    const api = renderForm(
      async () => {
        calls++;
        if (calls === 1)
          throw new ApiError(
            409,
            'この活動記録は他のユーザーによって更新されています。最新の内容を読み込んでから保存してください。',
          );
        return record({ version: 3 });
      },
      record({ version: 2, story: '他の人が書いた内容', memo: '他の人のメモ', other_memo: '他の人の別メモ' }),
    );
    const story = await screen.findByLabelText('内容');
    await userEvent.clear(story);
    await userEvent.type(story, '私の入力');
    await userEvent.click(screen.getByRole('button', { name: '保存する' }));
    expect(await screen.findByTestId('communication-conflict')).toHaveTextContent('他のユーザーが先に更新しました');
    expect(screen.getByTestId('communication-conflict-latest')).toHaveTextContent('他の人が書いた内容');
    expect(screen.getByLabelText('内容')).toHaveValue('私の入力');
    // Not changed by this edit: the other person's value.
    expect(screen.getByLabelText('メモ')).toHaveValue('他の人のメモ');
    expect(api.onSaved).not.toHaveBeenCalled();
    await userEvent.click(screen.getByRole('button', { name: '保存する' }));
    await waitFor(() => expect(api.onSaved).toHaveBeenCalled());
    const second = api.updateCommunication.mock.calls[1]![0] as UpdateCall;
    expect(second.ifMatch).toBe(2);
    expect(second.body).toMatchObject({ story: '私の入力', memo: '他の人のメモ', other_memo: '他の人の別メモ' });
  });
});
