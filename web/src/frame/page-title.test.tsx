import { describe, expect, it } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import { useParams } from '@tanstack/react-router';
import { renderFrame, testUser } from '../test/render-app.tsx';
import { usePageTitle } from './page-title.ts';

// Institution 1 has not loaded its name yet; institution 2 has.
const names: Record<string, string> = { '2': '葵医療センター' };

function NamedPage() {
  const { id } = useParams({ strict: false }) as { id: string };
  usePageTitle(names[id]);
  return <p>医療機関の本文</p>;
}

describe('a page title from the page data', () => {
  it('replaces the route title while the page is shown and gives it back when the page leaves', async () => {
    const pages = {
      '/tags': { title: 'タグ管理', text: 'タグ一覧の本文' },
      '/crms/$id': { title: '医療機関', text: '', component: NamedPage },
      '/profile': { text: '題名のないページ' },
    };
    const { router } = renderFrame('/crms/1', testUser(), pages);
    await screen.findByText('医療機関の本文');
    // Until the page knows its name, the route's own title stands.
    await waitFor(() => expect(document.title).toBe('医療機関 | Renkei'));

    await act(() => router.navigate({ to: '/crms/$id' as never, params: { id: '2' } as never }));
    await waitFor(() => expect(document.title).toBe('葵医療センター | Renkei'));

    await act(() => router.navigate({ to: '/tags' as never }));
    await screen.findByText('タグ一覧の本文');
    await waitFor(() => expect(document.title).toBe('タグ管理 | Renkei'));

    await act(() => router.navigate({ to: '/profile' as never }));
    await screen.findByText('題名のないページ');
    await waitFor(() => expect(document.title).toBe('Renkei'));
  });
});
