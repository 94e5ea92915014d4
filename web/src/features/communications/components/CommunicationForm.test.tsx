import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { CommunicationLabel } from '@renkei/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError, networkSubCode } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { testServices, testUser } from '../../../test/render-app.tsx';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { draftKey, loadDraft } from '../communication-draft.ts';
import { listOutbox } from '../communication-outbox.ts';
import { pendingSentMessage } from '../usePendingCommunicationsSender.ts';
import { CommunicationForm } from './CommunicationForm.tsx';
import { PendingCommunicationsSender } from './PendingCommunicationsSender.tsx';

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

const account = testUser({ id: id(50) });

afterEach(() => {
  localStorage.clear();
  vi.restoreAllMocks();
});

interface CreateCall {
  params: { id: string };
  idempotencyKey: string;
  body: Record<string, unknown>;
}

/** The form, and (`withSender`) the app's sender of kept records beside it, as the frame mounts it. */
function renderForm(
  create: (args: CreateCall) => Promise<unknown>,
  onSaved: (id: string) => void = () => {},
  { withSender = false } = {},
) {
  const api = {
    listCommunicationLabels: vi.fn(async () => [
      label({}),
      label({ id: id(3), name: '電話の用件', communication_type: 'phone', component_type: 'text', selections: [] }),
    ]),
    listStaffs: vi.fn(async () => [
      { id: account.id, name: account.name, cs_account: false },
      { id: id(40), name: '佐藤 次郎', cs_account: false },
    ]),
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
          {withSender && <PendingCommunicationsSender accountId={account.id} />}
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
        { field: 'label_values', message: 'ラベル「面談相手」は削除されました' },
        { field: 'tasks.0.staff_id', message: '担当者が見つかりません' },
      ]);
    });
    expect((await screen.findAllByLabelText(/面談相手/)).length).toBeGreaterThan(0);
    expect(screen.queryAllByLabelText(/電話の用件/)).toHaveLength(0);
    await userEvent.click(await screen.findByLabelText(/面談相手/, { selector: 'input' }));
    await userEvent.click(await screen.findByRole('option', { name: '院長', hidden: true }));
    await userEvent.click(screen.getByRole('button', { name: 'タスクを追加' }));
    await userEvent.type(screen.getByLabelText('タスク1'), '資料を送る');
    await userEvent.click(screen.getByRole('button', { name: '記録する' }));
    expect(await screen.findByText('ラベル「面談相手」は削除されました')).toBeInTheDocument();
    expect(screen.getByText('担当者が見つかりません')).toBeInTheDocument();
    const first = api.createForMedicalInstitution.mock.calls[0]![0] as { idempotencyKey: string; params: object };
    expect(first.params).toEqual({ id: id(9) });
    // A second submit of the same form is the same request: the same Idempotency-Key.
    await userEvent.click(screen.getByRole('button', { name: '記録する' }));
    const second = api.createForMedicalInstitution.mock.calls[1]![0] as { idempotencyKey: string };
    expect(second.idempotencyKey).toBe(first.idempotencyKey);
  });

  it('says what the server would refuse before sending: a required label left empty, a task without a title', async () => {
    // Offline, a record is kept and sent later: a refusal then would come after the phone was put away.
    const api = renderForm(async () => ({ id: id(20), medical_institution: { id: id(9) } }));
    await userEvent.type(await screen.findByLabelText('内容'), '院長と面談');
    await userEvent.click(screen.getByRole('button', { name: 'タスクを追加' }));
    await userEvent.click(screen.getByRole('button', { name: '記録する' }));
    expect(await screen.findByText('「面談相手」を入力してください')).toBeInTheDocument();
    expect(screen.getByText('タスクのタイトルを入力してください')).toBeInTheDocument();
    expect(api.createForMedicalInstitution).not.toHaveBeenCalled();
    expect(listOutbox(account.id)).toEqual([]);

    await userEvent.click(await screen.findByLabelText(/面談相手/, { selector: 'input' }));
    await userEvent.click(await screen.findByRole('option', { name: '院長', hidden: true }));
    await userEvent.type(screen.getByLabelText('タスク1'), '資料を送る');
    await userEvent.click(screen.getByRole('button', { name: '記録する' }));
    await waitFor(() => expect(api.createForMedicalInstitution).toHaveBeenCalledTimes(1));
  });

  it('sends the category, purpose, other memo, attendee and the staff member who acted', async () => {
    const onSaved = vi.fn();
    const api = renderForm(async () => ({ id: id(20), medical_institution: { id: id(9) } }), onSaved);
    // The caller acted, unless someone else is picked.
    expect(await screen.findByDisplayValue(account.name)).toBeInTheDocument();
    await userEvent.click(screen.getByLabelText('活動した担当者', { selector: 'input' }));
    await userEvent.click(await screen.findByRole('option', { name: '佐藤 次郎', hidden: true }));
    await userEvent.type(screen.getByLabelText('カテゴリ'), '定期訪問');
    await userEvent.type(screen.getByLabelText('目的'), '紹介のお礼');
    await userEvent.type(screen.getByLabelText(/同行者/), '地域連携室 田中');
    await userEvent.type(screen.getByLabelText('その他メモ'), '駐車場は裏手');
    await userEvent.click(await screen.findByLabelText(/面談相手/, { selector: 'input' }));
    await userEvent.click(await screen.findByRole('option', { name: '院長', hidden: true }));
    await userEvent.click(screen.getByRole('button', { name: '記録する' }));
    await waitFor(() => expect(onSaved).toHaveBeenCalledWith(id(9)));
    const call = api.createForMedicalInstitution.mock.calls[0]![0];
    expect(call.body).toMatchObject({
      communication_type: 'visit',
      user_id: id(40),
      category: '定期訪問',
      purpose: '紹介のお礼',
      attendee: '地域連携室 田中',
      other_memo: '駐車場は裏手',
      event_name: null,
    });
  });

  it('puts 内容 right after the day, above the optional fields (in view on a phone)', async () => {
    renderForm(async () => ({}));
    const story = await screen.findByLabelText('内容');
    const fields = [screen.getByLabelText(/活動日/), story, screen.getByLabelText('カテゴリ')];
    const order = (a: Element, b: Element) => a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING;
    expect(order(fields[0]!, fields[1]!)).toBeTruthy();
    expect(order(fields[1]!, fields[2]!)).toBeTruthy();
  });

  it('shows the event name and the attendee only for the types that have them', async () => {
    renderForm(async () => ({}));
    expect(await screen.findByLabelText(/同行者/)).toBeInTheDocument();
    expect(screen.queryByLabelText('イベント名')).toBeNull();
    await userEvent.click(screen.getByLabelText('種別', { selector: 'input' }));
    await userEvent.click(await screen.findByRole('option', { name: '電話', hidden: true }));
    await waitFor(() => expect(screen.queryByLabelText(/同行者/)).toBeNull());
    expect(screen.getByLabelText('カテゴリ')).toBeInTheDocument();
    expect(screen.getByLabelText('その他メモ')).toBeInTheDocument();
  });

  it('hands a record sent without a network to the app sender, which sends it once when the network returns', async () => {
    const unreachable = new ApiError(500, 'サーバーでエラーが発生しました', networkSubCode);
    let online = false;
    vi.spyOn(navigator, 'onLine', 'get').mockImplementation(() => online);
    const sent = vi.spyOn(toast, 'success').mockImplementation(() => {});
    const onSaved = vi.fn();
    const api = renderForm(
      async () => {
        if (!online) throw unreachable;
        return { id: id(20), medical_institution: { id: id(9) } };
      },
      onSaved,
      { withSender: true },
    );
    await userEvent.type(await screen.findByLabelText('内容'), '院長と面談');
    await userEvent.click(await screen.findByLabelText(/面談相手/, { selector: 'input' }));
    await userEvent.click(await screen.findByRole('option', { name: '院長', hidden: true }));
    await userEvent.click(screen.getByRole('button', { name: '記録する' }));
    const notice = await screen.findByTestId('communication-pending');
    // Where the user is after pressing 記録する at the end of a long form, not at its top out of view.
    expect(notice.nextElementSibling).toBe(screen.getByRole('button', { name: '記録する' }));
    expect(await screen.findByTestId('pending-communications')).toHaveTextContent('未送信 1件');
    // In the outbox (not the form's draft), with the request as the form built it.
    expect(localStorage.getItem(draftKey(account.id, id(9)))).toBeNull();
    const [kept] = listOutbox(account.id);
    expect(kept).toMatchObject({ institution: { id: id(9) }, body: { story: '院長と面談' } });
    expect(screen.getByRole('button', { name: '記録する' })).toBeDisabled();
    expect(onSaved).not.toHaveBeenCalled();

    online = true;
    act(() => void window.dispatchEvent(new Event('online')));
    await waitFor(() => expect(onSaved).toHaveBeenCalledTimes(1));
    expect(onSaved).toHaveBeenCalledWith(id(9));
    const keys = api.createForMedicalInstitution.mock.calls.map(([c]) => c.idempotencyKey);
    // The failed submit and the sender's send, nothing more, with one key: one record.
    expect(keys).toHaveLength(2);
    expect(new Set(keys)).toEqual(new Set([kept!.idempotencyKey]));
    expect(listOutbox(account.id)).toEqual([]);
    expect(sent).toHaveBeenCalledWith(pendingSentMessage);
    await waitFor(() => expect(screen.queryByTestId('pending-communications')).toBeNull());
  });

  it('takes its record back with the messages on the fields when the server refuses what the sender sent', async () => {
    vi.spyOn(toast, 'error').mockImplementation(() => {});
    let calls = 0;
    renderForm(
      async () => {
        calls++;
        if (calls === 1) throw new ApiError(500, 'サーバーでエラーが発生しました', networkSubCode);
        throw new ApiError(422, '入力内容に誤りがあります。', undefined, [
          { field: 'category', message: 'カテゴリは50文字以内で入力してください' },
        ]);
      },
      () => {},
      { withSender: true },
    );
    await userEvent.type(await screen.findByLabelText('内容'), '送れない記録');
    await userEvent.click(await screen.findByLabelText(/面談相手/, { selector: 'input' }));
    await userEvent.click(await screen.findByRole('option', { name: '院長', hidden: true }));
    await userEvent.click(screen.getByRole('button', { name: '記録する' }));
    // The sender tries at once (the browser says it is online) and is refused.
    expect(await screen.findByTestId('communication-refused')).toHaveTextContent(
      'カテゴリは50文字以内で入力してください',
    );
    expect(screen.getByText('カテゴリは50文字以内で入力してください', { selector: 'p' })).toBeInTheDocument();
    expect(screen.queryByTestId('communication-pending')).toBeNull();
    expect(screen.getByLabelText('内容')).toHaveValue('送れない記録');
    expect(screen.getByRole('button', { name: '記録する' })).toBeEnabled();
    expect(listOutbox(account.id)).toEqual([]);
    expect(loadDraft(draftKey(account.id, id(9)))).toMatchObject({ values: { story: '送れない記録' } });
  });

  it('restores what was typed after the form was closed, and can discard it', async () => {
    const first = renderForm(async () => ({}));
    await userEvent.type(await screen.findByLabelText('内容'), '途中まで入力');
    first.unmount();
    renderForm(async () => ({}));
    expect(await screen.findByTestId('communication-draft-restored')).toBeInTheDocument();
    expect(screen.getByLabelText('内容')).toHaveValue('途中まで入力');
    // One tap does not throw away what was typed: it asks, and 残す keeps everything.
    await userEvent.click(screen.getByRole('button', { name: '破棄して新しく入力' }));
    expect(screen.getByLabelText('内容')).toHaveValue('途中まで入力');
    await userEvent.click(screen.getByRole('button', { name: '残す' }));
    expect(screen.getByLabelText('内容')).toHaveValue('途中まで入力');
    expect(loadDraft(draftKey(account.id, id(9)))).toMatchObject({ values: { story: '途中まで入力' } });
    await userEvent.click(screen.getByRole('button', { name: '破棄して新しく入力' }));
    await userEvent.click(screen.getByRole('button', { name: '消して新しく入力' }));
    expect(screen.getByLabelText('内容')).toHaveValue('');
    expect(localStorage.getItem(draftKey(account.id, id(9)))).toBeNull();
  });

  it('keeps the label values typed for a type when another type is picked and the first one again', async () => {
    const api = renderForm(async () => ({ id: id(20), medical_institution: { id: id(9) } }));
    await userEvent.click(await screen.findByLabelText(/面談相手/, { selector: 'input' }));
    await userEvent.click(await screen.findByRole('option', { name: '院長', hidden: true }));
    const pickType = async (name: string) => {
      await userEvent.click(screen.getByLabelText('種別', { selector: 'input' }));
      await userEvent.click(await screen.findByRole('option', { name, hidden: true }));
    };
    await pickType('電話');
    await userEvent.type(await screen.findByLabelText(/電話の用件/), '紹介の相談');
    await pickType('訪問');
    expect(await screen.findByLabelText(/面談相手/, { selector: 'input' })).toHaveValue('院長');
    // Kept on the device too.
    expect(
      loadDraft<{ labelValues: Record<string, unknown> }>(draftKey(account.id, id(9)))?.values.labelValues,
    ).toEqual({
      [id(1)]: { label_id: id(1), selection_id: id(2) },
      [id(3)]: { label_id: id(3), text_value: '紹介の相談' },
    });
    await pickType('電話');
    expect(screen.getByLabelText(/電話の用件/)).toHaveValue('紹介の相談');
    // Only the chosen type's labels are sent.
    await userEvent.click(screen.getByRole('button', { name: '記録する' }));
    await waitFor(() => expect(api.createForMedicalInstitution).toHaveBeenCalledTimes(1));
    expect(api.createForMedicalInstitution.mock.calls[0]![0].body).toMatchObject({
      communication_type: 'phone',
      label_values: [{ label_id: id(3), text_value: '紹介の相談' }],
    });
  });
});
