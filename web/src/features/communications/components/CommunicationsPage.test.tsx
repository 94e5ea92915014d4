import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { setViewportWidth, testUser } from '../../../test/render-app.tsx';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { CommunicationsPage, type CommunicationsParams } from './CommunicationsPage.tsx';

const user = testUser({ features: ['communications', 'medical_institutions_search'] });

function renderPage(params: CommunicationsParams) {
  const onParamsChange = vi.fn();
  const api = {
    searchCommunications: vi.fn(async () => ({
      data: [],
      meta: { total_count: 0, total_pages: 0, current_page: 1, per_page: 20 },
    })),
    listCommunicationLabels: vi.fn(async () => []),
    listStaffs: vi.fn(async () => []),
    listTags: vi.fn(async () => ({
      data: [],
      meta: { total_count: 0, total_pages: 0, current_page: 1, per_page: 100 },
    })),
    listOwnDepartments: vi.fn(async () => []),
  };
  renderInRouter(() => <CommunicationsPage params={params} onParamsChange={onParamsChange} currentUserId={user.id} />, {
    api,
    user,
  });
  return { onParamsChange };
}

afterEach(() => setViewportWidth(1280));

describe('the communications timeline when nothing is listed', () => {
  it('narrowed to nothing, says to change the conditions and clears them in one tap', async () => {
    setViewportWidth(360);
    const { onParamsChange } = renderPage({ page: 1, sort: 'desc', keyword: '存在しない言葉' });
    const empty = await screen.findByTestId('communication-empty');
    expect(empty).toHaveTextContent('キーワードや絞り込みの条件を変えるか、条件をクリアしてください');
    expect(empty).not.toHaveTextContent('「活動を記録」から');
    await userEvent.click(screen.getAllByRole('button', { name: '条件をクリア' }).at(-1)!);
    expect(onParamsChange).toHaveBeenCalledWith(expect.objectContaining({ keyword: undefined, page: 1 }));
  });

  it('with no records at all, leads to 「活動を記録」', async () => {
    renderPage({ page: 1, sort: 'desc' });
    expect(await screen.findByTestId('communication-empty')).toHaveTextContent(
      '「活動を記録」から訪問や電話を記録してください',
    );
    expect(screen.queryByRole('button', { name: '条件をクリア' })).toBeNull();
  });

  it('on a phone the 絞り込み button keeps its size beside the keyword field (its text was cut at 360 px)', async () => {
    setViewportWidth(360);
    renderPage({ page: 1, sort: 'desc', keyword: '院長' });
    const button = await screen.findByRole('button', { name: /絞り込み/ });
    expect(button).toHaveStyle({ flexShrink: '0' });
    expect(screen.getByLabelText('キーワード（内容・メモ）').closest('form')).toHaveStyle({ minWidth: '0' });
  });
});
