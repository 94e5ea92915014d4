import { afterEach, describe, expect, it } from 'vitest';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderFrame, setViewportWidth, testUser } from '../test/render-app.tsx';
import { phoneUnsupportedMessage } from './page-meta.ts';

const pages = {
  '/tags': { title: 'タグ管理', text: 'タグ一覧の本文' },
  '/profile': { title: '個人設定', text: '個人設定の本文' },
  '/tasks': { title: 'タスク', text: 'タスクの本文' },
  '/crms/$id': { title: '医療機関', text: '医療機関の本文' },
  '/crms/$id/tasks': { title: '医療機関のタスク', text: '医療機関タスクの本文' },
};

afterEach(() => setViewportWidth(1280));

describe('application frame', () => {
  it('shows only the menu entries the account has features for', async () => {
    renderFrame('/tags', testUser({ features: ['tags', 'accounts'] }), pages);
    const menu = await screen.findByRole('navigation', { name: 'メインメニュー' });
    expect(within(menu).getByText('タグ管理')).toBeInTheDocument();
    // The account has the feature but this build has no /accounts page yet.
    expect(within(menu).queryByText('アカウント管理')).not.toBeInTheDocument();
    expect(within(menu).queryByText('タスク')).not.toBeInTheDocument();
    expect(within(menu).getByText('サポートページ').closest('a')).toHaveAttribute('target', '_blank');
  });

  it('adds an entry when the account has its feature and the page exists', async () => {
    renderFrame('/tags', testUser({ features: ['tags', 'tasks'] }), pages);
    const menu = await screen.findByRole('navigation', { name: 'メインメニュー' });
    expect(within(menu).getByText('タスク')).toBeInTheDocument();
  });

  it('reaches the reports group by keyboard: a button that says whether it is open, and opens with Enter', async () => {
    renderFrame('/tags', testUser({ features: ['tags', 'report', 'area_report'] }), {
      ...pages,
      '/area_reports': { title: 'エリアレポート', text: 'エリアレポートの本文' },
    });
    const menu = await screen.findByRole('navigation', { name: 'メインメニュー' });
    const group = within(menu).getByRole('button', { name: 'レポート' });
    expect(group).toHaveAttribute('aria-expanded', 'false');
    group.focus();
    await userEvent.keyboard('{Enter}');
    expect(group).toHaveAttribute('aria-expanded', 'true');
    // The Collapse opens with a transition.
    expect(await within(menu).findByRole('link', { name: 'エリアレポート' })).toBeVisible();
  });

  it('takes the first Tab to a skip link that moves the focus to the page', async () => {
    renderFrame('/tags', testUser(), pages);
    await screen.findByText('タグ一覧の本文');
    await userEvent.tab();
    const skip = screen.getByRole('link', { name: '本文へ移動' });
    expect(skip).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    expect(document.getElementById('main-content')).toHaveFocus();
  });

  it('takes a hidden menu out of the Tab order, and the toggle says whether the menu is shown', async () => {
    renderFrame('/tags', testUser(), pages);
    await screen.findByText('タグ一覧の本文');
    const toggle = screen.getByRole('button', { name: 'メニューの表示切り替え' });
    const sideMenu = screen.getByTestId('side-menu');
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(sideMenu).not.toHaveAttribute('inert');
    await userEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    // The browser skips an inert subtree on Tab (jsdom does not implement it, so the attribute is the check).
    expect(sideMenu).toHaveAttribute('inert');
    await userEvent.click(toggle);
    expect(sideMenu).not.toHaveAttribute('inert');
  });

  it('titles the document after the page', async () => {
    renderFrame('/tags', testUser(), pages);
    await screen.findByText('タグ一覧の本文');
    await waitFor(() => expect(document.title).toBe('タグ管理 | Renkei'));
  });

  it('has a user menu with personal settings and logout, tenant settings only for csAccount', async () => {
    const { services } = renderFrame('/tags', testUser(), pages);
    await userEvent.click(await screen.findByTestId('user-menu'));
    expect(await screen.findByText('個人設定')).toBeInTheDocument();
    expect(screen.queryByText('テナント設定')).not.toBeInTheDocument();
    await userEvent.click(screen.getByText('ログアウト'));
    expect(services.logout).toHaveBeenCalledOnce();
  });

  it('runs the user menu from the keyboard: focus on the first item, arrows between items, Escape back', async () => {
    renderFrame('/tags', testUser({ csAccount: true }), {
      ...pages,
      '/tenant_setting': { text: 'テナント設定の本文' },
    });
    const button = await screen.findByTestId('user-menu');
    button.focus();
    await userEvent.keyboard('{Enter}');
    const menu = await screen.findByRole('menu', { name: 'ユーザーメニュー' });
    expect(within(menu).getByRole('menuitem', { name: '個人設定' })).toHaveFocus();
    await userEvent.keyboard('{ArrowDown}');
    expect(within(menu).getByRole('menuitem', { name: 'テナント設定' })).toHaveFocus();
    await userEvent.keyboard('{ArrowDown}{ArrowDown}');
    expect(within(menu).getByRole('menuitem', { name: '個人設定' })).toHaveFocus();
    await userEvent.keyboard('{ArrowUp}');
    expect(within(menu).getByRole('menuitem', { name: 'ログアウト' })).toHaveFocus();
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    expect(button).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    await screen.findByRole('menu');
    // Tab past the last item leaves the menu, and closes it.
    await userEvent.tab();
    await userEvent.tab();
    expect(screen.getByRole('menuitem', { name: 'ログアウト' })).toHaveFocus();
    await userEvent.tab();
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
  });

  it('has privacy and cookie policy links and a copyright in the footer', async () => {
    renderFrame('/tags', testUser(), pages);
    expect(await screen.findByText('プライバシーポリシー')).toBeInTheDocument();
    expect(screen.getByText('クッキーポリシー')).toBeInTheDocument();
    expect(screen.getByText(/© \d{4} Renkei/)).toBeInTheDocument();
  });

  it('on a tablet starts with the side menu closed, and the toggle opens it; on a desk it starts open', async () => {
    setViewportWidth(800);
    const tablet = renderFrame('/tags', testUser({ features: ['tags'] }), pages);
    await screen.findByText('タグ一覧の本文');
    expect(screen.getByTestId('side-menu')).toHaveAttribute('data-opened', 'false');
    await userEvent.click(screen.getByTestId('menu-collapse'));
    expect(screen.getByTestId('side-menu')).toHaveAttribute('data-opened', 'true');
    tablet.unmount();
    setViewportWidth(1280);
    renderFrame('/tags', testUser({ features: ['tags'] }), pages);
    await screen.findByText('タグ一覧の本文');
    expect(screen.getByTestId('side-menu')).toHaveAttribute('data-opened', 'true');
  });

  it('on a phone ends the page with the policy links instead of a bar fixed over it', async () => {
    setViewportWidth(375);
    renderFrame('/crms/$id', testUser(), pages);
    const privacy = await screen.findByText('プライバシーポリシー');
    expect(screen.getByRole('main')).toContainElement(privacy);
  });

  it('on a phone, shows the unsupported notice on /tags and /profile', async () => {
    setViewportWidth(375);
    renderFrame('/tags', testUser(), pages);
    expect(await screen.findByText(phoneUnsupportedMessage)).toBeInTheDocument();
    expect(screen.queryByText('タグ一覧の本文')).not.toBeVisible();
  });

  it('keeps the page mounted, with its state, while a narrowed viewport shows the phone notice', async () => {
    renderFrame('/tags', testUser(), pages);
    const page = await screen.findByText('タグ一覧の本文');
    setViewportWidth(375);
    expect(await screen.findByText(phoneUnsupportedMessage)).toBeInTheDocument();
    expect(page).not.toBeVisible();
    setViewportWidth(1280);
    await waitFor(() => expect(screen.queryByText(phoneUnsupportedMessage)).not.toBeInTheDocument());
    // The same element: a remount would have made a new one (and reset every state of the page).
    expect(screen.getByText('タグ一覧の本文')).toBe(page);
    expect(page).toBeVisible();
  });

  it('on a phone, shows /crms/{id} itself and a back link on its sub-pages', async () => {
    setViewportWidth(375);
    const { router } = renderFrame('/crms/42', testUser(), pages);
    expect(await screen.findByText('医療機関の本文')).toBeInTheDocument();
    expect(screen.queryByText(phoneUnsupportedMessage)).not.toBeInTheDocument();
    await router.navigate({ to: '/crms/$id/tasks' as never, params: { id: '42' } as never });
    expect(await screen.findByTestId('back-link')).toHaveAttribute('href', '/app/crms/42');
  });

  it('on desktop, shows pages without the phone notice', async () => {
    renderFrame('/profile', testUser(), pages);
    expect(await screen.findByText('個人設定の本文')).toBeInTheDocument();
    expect(screen.queryByText(phoneUnsupportedMessage)).not.toBeInTheDocument();
  });
});
