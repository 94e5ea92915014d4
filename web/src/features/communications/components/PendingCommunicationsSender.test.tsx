import { MantineProvider } from '@mantine/core';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError, networkSubCode } from '../../../api/api-errors.ts';
import { ServicesProvider, type AppServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { testServices } from '../../../test/render-app.tsx';
import { draftKey, loadDraft, saveDraft } from '../communication-draft.ts';
import { enqueueCommunication, listOutbox, subscribeOutbox, type OutboxEvent } from '../communication-outbox.ts';
import { pendingSentMessage } from '../usePendingCommunicationsSender.ts';
import { PendingCommunicationsSender } from './PendingCommunicationsSender.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const account = 'acc-1';
const unreachable = () => new ApiError(500, 'サーバーに接続できません', networkSubCode);

interface CreateCall {
  params: { id: string };
  body: { story: string };
  idempotencyKey: string;
}

/** A record the form kept while offline, for the institution `n`. */
function keep(n: number, story: string, formSlot = draftKey(account, null)) {
  const key = `key-${n}-${story}`;
  enqueueCommunication(account, {
    idempotencyKey: key,
    institution: { id: id(n), name: `クリニック${n}` },
    body: { communication_type: 'visit', acted_date: '2026-11-20', story },
    draft: { key: formSlot, values: { story } },
  });
  return key;
}

function renderSender(create: (args: CreateCall) => Promise<unknown>, retryMs = 10_000) {
  const api = { createForMedicalInstitution: vi.fn(create) };
  const services: AppServices = { ...testServices(), api: api as unknown as AppServices['api'] };
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const view = render(
    <MantineProvider>
      <QueryClientProvider client={client}>
        <ServicesProvider value={services}>
          <PendingCommunicationsSender accountId={account} retryMs={retryMs} />
        </ServicesProvider>
      </QueryClientProvider>
    </MantineProvider>,
  );
  return Object.assign(api, { unmount: view.unmount });
}

const sentKeys = (api: { createForMedicalInstitution: { mock: { calls: [CreateCall][] } } }) =>
  api.createForMedicalInstitution.mock.calls.map(([call]) => call.idempotencyKey);

let online = true;
let success: ReturnType<typeof vi.spyOn>;
let failure: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  online = true;
  vi.spyOn(navigator, 'onLine', 'get').mockImplementation(() => online);
  success = vi.spyOn(toast, 'success').mockImplementation(() => {});
  failure = vi.spyOn(toast, 'error').mockImplementation(() => {});
});
afterEach(() => {
  vi.restoreAllMocks();
  localStorage.clear();
});

describe('pending communications sender', () => {
  it('sends what was kept at start-up, once each with its own Idempotency-Key, and then shows nothing', async () => {
    const first = keep(1, '院長と面談');
    const second = keep(2, '事務長と面談');
    const api = renderSender(async (call) => ({ id: id(50), medical_institution: { id: call.params.id } }));
    await waitFor(() => expect(listOutbox(account)).toEqual([]));
    expect(sentKeys(api)).toEqual([first, second]);
    expect(api.createForMedicalInstitution.mock.calls[1]![0]).toMatchObject({
      params: { id: id(2) },
      body: { story: '事務長と面談' },
    });
    expect(success).toHaveBeenCalledWith(pendingSentMessage);
    await waitFor(() => expect(screen.queryByTestId('pending-communications')).toBeNull());
  });

  it('waits while the browser is offline, shows the count, and sends when the online event comes', async () => {
    online = false;
    const key = keep(1, '駐車場で入力');
    const api = renderSender(async () => ({ id: id(50), medical_institution: { id: id(1) } }));
    expect(await screen.findByTestId('pending-communications')).toHaveTextContent('未送信 1件');
    expect(screen.getByRole('status')).toHaveTextContent('未送信 1件');
    expect(api.createForMedicalInstitution).not.toHaveBeenCalled();

    online = true;
    act(() => void window.dispatchEvent(new Event('online')));
    await waitFor(() => expect(screen.queryByTestId('pending-communications')).toBeNull());
    expect(sentKeys(api)).toEqual([key]);
    // A second online event finds nothing left to send.
    act(() => void window.dispatchEvent(new Event('online')));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(api.createForMedicalInstitution).toHaveBeenCalledTimes(1);
  });

  it('tries again by itself while the server cannot be reached, with the same key', async () => {
    let reachable = false;
    const key = keep(1, '再送');
    const api = renderSender(async () => {
      if (!reachable) throw unreachable();
      return { id: id(50), medical_institution: { id: id(1) } };
    }, 30);
    await waitFor(() => expect(api.createForMedicalInstitution.mock.calls.length).toBeGreaterThanOrEqual(2));
    expect(screen.getByTestId('pending-communications')).toHaveTextContent('未送信 1件');
    reachable = true;
    await waitFor(() => expect(listOutbox(account)).toEqual([]));
    expect(new Set(sentKeys(api))).toEqual(new Set([key]));
    const calls = api.createForMedicalInstitution.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(api.createForMedicalInstitution).toHaveBeenCalledTimes(calls);
  });

  it('sends a record a form keeps while it is mounted', async () => {
    const api = renderSender(async () => ({ id: id(50), medical_institution: { id: id(3) } }));
    const events: OutboxEvent[] = [];
    const unsubscribe = subscribeOutbox((e) => events.push(e));
    const key = keep(3, 'あとから');
    await waitFor(() => expect(events).toContainEqual({ type: 'sent', idempotencyKey: key, institutionId: id(3) }));
    expect(sentKeys(api)).toEqual([key]);
    unsubscribe();
  });

  it('turns a refused record back into a draft of its form, with its key, and names the institution', async () => {
    const slot = draftKey(account, id(1));
    const key = keep(1, '必須ラベルなし', slot);
    const events: OutboxEvent[] = [];
    const unsubscribe = subscribeOutbox((e) => events.push(e));
    const api = renderSender(async () => {
      throw new ApiError(422, '入力内容に誤りがあります。', undefined, [
        { field: 'label_values', message: '「面談相手」を入力してください' },
      ]);
    }, 30);
    await waitFor(() => expect(listOutbox(account)).toEqual([]));
    expect(loadDraft(slot)).toMatchObject({ idempotencyKey: key, values: { story: '必須ラベルなし' } });
    expect(failure).toHaveBeenCalledTimes(1);
    expect(failure.mock.calls[0]![0]).toContain('「クリニック1」の活動記録を送信できませんでした');
    expect(failure.mock.calls[0]![0]).toContain('「面談相手」を入力してください');
    expect(events).toContainEqual(expect.objectContaining({ type: 'returned', idempotencyKey: key, draftKey: slot }));
    // A refusal is not sent again.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(api.createForMedicalInstitution).toHaveBeenCalledTimes(1);
    expect(success).not.toHaveBeenCalled();
    unsubscribe();
  });

  it('keeps a refused record whose forms both hold a draft, and puts it back once one is free', async () => {
    const formSlot = draftKey(account, null);
    const institutionSlot = draftKey(account, id(1));
    saveDraft(formSlot, { values: { story: '次の記録' }, idempotencyKey: 'typing-1' });
    saveDraft(institutionSlot, { values: { story: '別の記録' }, idempotencyKey: 'typing-2' });
    const key = keep(1, '却下された記録', formSlot);
    const api = renderSender(async () => {
      throw new ApiError(404, '医療機関が見つかりません');
    }, 30);
    await waitFor(() => expect(listOutbox(account)[0]?.refused).toBe(true));
    expect(failure.mock.calls[0]![0]).toContain('入力途中の記録を記録するか破棄すると');
    // Nothing typed is overwritten.
    expect(loadDraft(formSlot)).toMatchObject({ idempotencyKey: 'typing-1' });
    expect(loadDraft(institutionSlot)).toMatchObject({ idempotencyKey: 'typing-2' });
    expect(screen.getByTestId('pending-communications')).toHaveTextContent('未送信 1件');

    localStorage.removeItem(institutionSlot);
    await waitFor(() => expect(listOutbox(account)).toEqual([]));
    expect(loadDraft(institutionSlot)).toMatchObject({ idempotencyKey: key, values: { story: '却下された記録' } });
    expect(api.createForMedicalInstitution).toHaveBeenCalledTimes(1);
    expect(failure).toHaveBeenCalledTimes(1);
  });

  it("sends only the signed-in account's records", async () => {
    enqueueCommunication('another-account', {
      idempotencyKey: 'theirs',
      institution: { id: id(1), name: 'クリニック1' },
      body: { communication_type: 'visit', acted_date: '2026-11-20' },
      draft: { key: draftKey('another-account', null), values: {} },
    });
    const mine = keep(2, '自分の記録');
    const api = renderSender(async () => ({ id: id(50), medical_institution: { id: id(2) } }));
    await waitFor(() => expect(listOutbox(account)).toEqual([]));
    expect(sentKeys(api)).toEqual([mine]);
    expect(listOutbox('another-account')).toHaveLength(1);
  });
});

describe('the count of records kept on the device', () => {
  it('sits under dialogs, so a phone full-screen form is not covered by it', () => {
    renderSender(async () => ({}));
    const affix = screen.getByTestId('pending-communications-affix');
    // Mantine's dialogs are at the modal layer (200); the frame's header and this badge at the app's (100).
    expect(affix.getAttribute('style')).toMatch(/z-index:\s*100\b/);
  });
});
