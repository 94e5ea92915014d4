import { screen, waitFor, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { SegmentMapInstitution, SegmentMapSegment } from '@renkei/contracts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { listFirstBatch, SegmentMapList } from './SegmentMapList.tsx';
import { segmentColors } from '../segment-colors.ts';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const key = id(9001);
const row = (n: number, segment: string | null): SegmentMapInstitution => ({
  id: id(n),
  name: `医療機関${n}`,
  address: `静岡県静岡市${n}`,
  latitude: 34.9,
  longitude: 138.4,
  referral_count: 1000 - n,
  referral_admission_rate: 40,
  segment_id: segment,
  segment_label: segment ? 'A 重点連携先' : 'その他',
});

// More entries than the first batch: a few in the key segment, most in the rest.
const rows = [
  ...Array.from({ length: 40 }, (_, i) => row(i + 1, key)),
  ...Array.from({ length: 110 }, (_, i) => row(i + 41, null)),
];
const segments: SegmentMapSegment[] = [
  { segment_id: key, label: 'A 重点連携先', priority: 1, institution_count: 40, referral_count: 1 },
  { segment_id: null, label: 'その他', priority: null, institution_count: 110, referral_count: 1 },
];

describe('segment map list', () => {
  it('renders a long list in steps: the first entries at once, every entry soon after, in list order', async () => {
    // The entries of the first commit, seen before any later step runs (a mutation observer's callback
    // runs right after the commit that added the list, before the timers of the steps).
    let first: number | undefined;
    const observer = new MutationObserver(() => {
      const list = document.querySelector('[data-testid="segment-map-list"]');
      if (list && first === undefined) first = list.querySelectorAll('li').length;
    });
    observer.observe(document.body, { childList: true, subtree: true });
    renderInRouter(
      () => (
        <SegmentMapList
          segments={segments}
          rows={rows}
          colors={segmentColors(segments)}
          highlightedId={null}
          onHover={() => {}}
        />
      ),
      { api: {}, paths: ['/crms/$id'] },
    );
    const list = await screen.findByTestId('segment-map-list');
    observer.disconnect();
    expect(first).toBe(listFirstBatch);
    await waitFor(() => expect(list.querySelectorAll('li')).toHaveLength(rows.length), { timeout: 5000 });
    expect(list).toHaveAttribute('aria-busy', 'false');
    const rest = within(screen.getByRole('region', { name: 'その他' })).getAllByRole('button');
    expect(rest).toHaveLength(110);
    expect(rest[0]).toHaveTextContent('医療機関41');
    expect(rest[109]).toHaveTextContent('医療機関150');
  });
});
