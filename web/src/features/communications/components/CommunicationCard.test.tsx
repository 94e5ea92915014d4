import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Communication, CommunicationLabel, LabelValue } from '@renkei/contracts';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { toast } from '../../../app/toast.ts';
import { setViewportWidth, testUser } from '../../../test/render-app.tsx';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { communicationQueries } from '../communications.queries.ts';
import { CommunicationCard, communicationConflictMessage, likersText } from './CommunicationCard.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const me = id(30);

const record = (patch: Partial<Communication> = {}): Communication => ({
  id: id(1),
  communication_type: 'visit',
  acted_date: '2026-11-20',
  category: null,
  purpose: null,
  story: '院長と面談',
  email: null,
  attachments: [],
  event_name: null,
  memo: '',
  other_memo: '',
  user: { id: me, name: '佐藤' },
  person_in_charge_hospital: null,
  attendee: null,
  is_doctor_attended: false,
  medical_institution: { id: id(9), name: '駿河クリニック' },
  tasks: [],
  comments: [],
  likes: [],
  label_values: [],
  vocs: [],
  created_at: '2026-11-20T01:00:00Z',
  updated_at: '2026-11-20T01:00:00Z',
  version: 3,
  ...patch,
});

const label = (n: number, name: string, patch: Partial<CommunicationLabel> = {}): CommunicationLabel => ({
  id: id(n),
  name,
  communication_type: 'visit',
  component_type: 'text',
  order: n,
  description: '',
  selections: [],
  is_required: false,
  version: 0,
  ...patch,
});

const value = (labelId: string, patch: Partial<LabelValue>): LabelValue => ({
  label_id: labelId,
  text_value: null,
  integer_value: null,
  date_value: null,
  time_value: null,
  selection_id: null,
  selection_ids: [],
  own_department_id: null,
  area_id: null,
  ...patch,
});

afterEach(() => vi.restoreAllMocks());

function renderCard(c: Communication, labels: CommunicationLabel[] = [], api: Record<string, unknown> = {}) {
  const calls = {
    listCommunicationLabels: vi.fn(async () => labels),
    listOwnDepartments: vi.fn(async () => [
      { id: id(50), name: '循環器内科', department_id: null, order: 0 },
      { id: id(51), name: '整形外科', department_id: null, order: 1 },
    ]),
    deleteCommunication: vi.fn(async () => null),
    ...api,
  };
  const view = renderInRouter(
    () => <CommunicationCard communication={c} labels={labels.filter((l) => !l.is_deleted)} currentUserId={me} />,
    { api: calls, user: testUser({ features: ['communications'] }), paths: ['/crms/$id', '/emails/$id/reports'] },
  );
  return { api: calls, ...view };
}

describe('the communication card', () => {
  it('shows every field the record has, and nothing of the empty ones', async () => {
    renderCard(
      record({
        category: '定期訪問',
        purpose: '紹介のお礼',
        event_name: '地域連携の会',
        memo: '次回は部長にも',
        other_memo: '駐車場は裏手',
        person_in_charge_hospital: '事務長 山田',
        attendee: '医事課 鈴木',
        is_doctor_attended: true,
      }),
    );
    const card = await screen.findByTestId('communication-card');
    for (const text of [
      'カテゴリ: 定期訪問',
      '目的: 紹介のお礼',
      'イベント名: 地域連携の会',
      '先方担当者: 事務長 山田',
      '同行者: 医事課 鈴木',
      '院長と面談',
      'メモ: 次回は部長にも',
      'その他メモ: 駐車場は裏手',
      '担当: 佐藤',
      '医師面談',
    ])
      expect(card).toHaveTextContent(text);
  });

  it('gives a phone buttons a thumb hits, a desktop compact ones', async () => {
    const heightOf = (card: HTMLElement, name: string | RegExp) =>
      /--button-height:\s*var\(--button-height-([a-z-]+)\)/.exec(
        within(card).getByRole('button', { name }).getAttribute('style') ?? '',
      )?.[1];
    const buttons = ['削除', /^いいね/, 'VOCを登録'];
    setViewportWidth(390);
    try {
      const phone = renderCard(
        record({
          comments: [
            {
              id: id(60),
              user: { id: me, name: '佐藤' },
              created_date: '2026-11-20T02:00:00.000Z',
              comment: '了解',
              version: 0,
            },
          ],
        }),
      );
      const card = await screen.findByTestId('communication-card');
      expect(buttons.map((b) => heightOf(card, b))).toEqual(['md', 'md', 'md']);
      // At least 44 px, the comment's send and its author's 編集/削除 included (md alone is 42 px).
      for (const name of ['削除', /^いいね/, 'VOCを登録', '送信', 'コメントを編集', 'コメントを削除'])
        expect(within(card).getByRole('button', { name }).getAttribute('style')).toMatch(
          /min-height:\s*calc\(2\.75rem/,
        );
      phone.unmount();
    } finally {
      setViewportWidth(1280);
    }
    renderCard(record());
    const card = await screen.findByTestId('communication-card');
    expect(buttons.map((b) => heightOf(card, b))).toEqual(['compact-sm', 'compact-sm', 'compact-sm']);
  });

  it('says who liked the record beside the button', async () => {
    renderCard(record({ likes: [{ user: { id: id(7), name: '高橋' } }, { user: { id: me, name: '佐藤' } }] }));
    expect(await screen.findByTestId('communication-likers')).toHaveTextContent('高橋、佐藤');
    expect(likersText(['a', 'b', 'c', 'd', 'e'])).toBe('a、b、c ほか2人');
  });

  it('shows none of the fields a record leaves empty', async () => {
    renderCard(record({ user: null }));
    const card = await screen.findByTestId('communication-card');
    expect(card).toHaveTextContent('院長と面談');
    expect(within(card).queryByTestId('communication-details')).toBeNull();
    for (const name of [
      'カテゴリ',
      '目的',
      'イベント名',
      '先方担当者',
      '同行者',
      'その他メモ',
      'メモ',
      '担当',
      '医師面談',
    ])
      expect(card).not.toHaveTextContent(name);
  });

  it('names an own department by its name, and deleted labels and choices marked （削除済み）', async () => {
    const labels = [
      label(10, '紹介先', { component_type: 'own_department' }),
      label(11, '面談結果', {
        component_type: 'select',
        selections: [{ id: id(60), label: '良好', order: 0 }],
        deleted_selections: [{ id: id(61), label: '保留', order: 1 }],
        is_deleted: false,
      }),
      label(12, '旧ラベル', { is_deleted: true, deleted_selections: [] }),
    ];
    const { api } = renderCard(
      record({
        label_values: [
          value(id(10), { own_department_id: id(51) }),
          value(id(11), { selection_id: id(61) }),
          value(id(12), { text_value: '旧値' }),
        ],
      }),
      labels,
    );
    const card = await screen.findByTestId('communication-card');
    expect(await within(card).findByText('紹介先: 整形外科')).toBeInTheDocument();
    expect(await within(card).findByText('面談結果: 保留（削除済み）')).toBeInTheDocument();
    expect(within(card).getByText('旧ラベル（削除済み）: 旧値')).toBeInTheDocument();
    // The list with the deleted labels is what names them.
    expect(api.listCommunicationLabels).toHaveBeenCalledWith(
      expect.objectContaining({ query: { include_deleted: true } }),
    );
  });

  it('does not ask for the deleted labels or departments when the live labels name every value', async () => {
    const labels = [label(10, '所感')];
    const { api } = renderCard(record({ label_values: [value(id(10), { text_value: '好感触' })] }), labels);
    expect(await screen.findByText('所感: 好感触')).toBeInTheDocument();
    expect(api.listCommunicationLabels).not.toHaveBeenCalled();
    expect(api.listOwnDepartments).not.toHaveBeenCalled();
  });

  it('shows a date value as the other dates, and a long text value whole', async () => {
    const note =
      '院長より、来月から火曜午後の外来を休診にするとの連絡あり。\n紹介状は月曜・水曜に送付してほしいとのこと。';
    const labels = [
      label(10, '次回訪問予定', { component_type: 'date' }),
      label(11, '所感', { component_type: 'textarea' }),
    ];
    renderCard(
      record({ label_values: [value(id(10), { date_value: '2026-12-24' }), value(id(11), { text_value: note })] }),
      labels,
    );
    expect(await screen.findByText('次回訪問予定: 2026/12/24')).toBeInTheDocument();
    // Not in a one-line badge that cuts it with an ellipsis: a paragraph keeping its lines.
    const long = screen.getByTestId('communication-label-text');
    expect(long.textContent).toBe(`所感: ${note}`);
    expect(long.style.whiteSpace).toBe('pre-wrap');
  });

  it('deletes the record after a confirmation, against the version it shows (If-Match)', async () => {
    const shown = vi.spyOn(toast, 'success').mockImplementation(() => {});
    const { api, client } = renderCard(record());
    const invalidated = vi.spyOn(client, 'invalidateQueries');
    const card = await screen.findByTestId('communication-card');
    await userEvent.click(within(card).getByRole('button', { name: '削除' }));
    const dialog = await screen.findByRole('dialog', { name: '活動記録の削除' });
    expect(dialog).toHaveTextContent('2026/11/20の訪問の記録を削除しますか？');
    await userEvent.click(within(dialog).getByRole('button', { name: '削除する' }));
    await waitFor(() => expect(api.deleteCommunication).toHaveBeenCalledWith({ params: { id: id(1) }, ifMatch: 3 }));
    expect(invalidated).toHaveBeenCalledWith(expect.objectContaining({ queryKey: communicationQueries.all }));
    await waitFor(() => expect(shown).toHaveBeenCalledWith('活動記録を削除しました'));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: '活動記録の削除' })).toBeNull());
  });

  it('says so in a toast when the record was saved elsewhere since (409), and deletes nothing more', async () => {
    const shown = vi.spyOn(toast, 'error').mockImplementation(() => {});
    const deleteCommunication = vi.fn(async () => {
      throw new ApiError(409, '競合しました');
    });
    renderCard(record(), [], { deleteCommunication });
    const card = await screen.findByTestId('communication-card');
    await userEvent.click(within(card).getByRole('button', { name: '削除' }));
    const dialog = await screen.findByRole('dialog', { name: '活動記録の削除' });
    await userEvent.click(within(dialog).getByRole('button', { name: '削除する' }));
    await waitFor(() => expect(shown).toHaveBeenCalledWith(communicationConflictMessage));
    expect(deleteCommunication).toHaveBeenCalledTimes(1);
  });

  it('cancels without deleting', async () => {
    const { api } = renderCard(record());
    await userEvent.click(
      within(await screen.findByTestId('communication-card')).getByRole('button', { name: '削除' }),
    );
    const dialog = await screen.findByRole('dialog', { name: '活動記録の削除' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'キャンセル' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: '活動記録の削除' })).toBeNull());
    expect(api.deleteCommunication).not.toHaveBeenCalled();
  });
});
