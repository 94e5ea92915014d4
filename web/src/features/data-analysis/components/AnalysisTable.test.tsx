import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { AnalysisTable, exportOf } from './AnalysisTable.tsx';

const columns = [
  { key: 'name', label: '医療機関' },
  { key: 'count', label: '紹介件数', format: 'count' as const },
];
const table = exportOf('紹介元ランキング', columns, [
  { id: 'a', name: '駿河クリニック', count: 12 },
  { id: 'b', name: '清水内科', count: 3 },
]);

describe('AnalysisTable', () => {
  it('a table in a scrolling box can be reached with Tab, by the name of its table', async () => {
    renderInRouter(() => <AnalysisTable columns={columns} table={table} maxHeight={150} />, { api: {} });
    const box = await screen.findByRole('region', { name: '紹介元ランキング' });
    await userEvent.tab();
    expect(box).toHaveFocus();
  });

  it('a box whose rows link to institutions leaves Tab to the links', async () => {
    renderInRouter(() => <AnalysisTable columns={columns} table={table} linkKey="name" maxHeight={150} />, {
      api: {},
    });
    await screen.findByRole('region', { name: '紹介元ランキング' });
    await userEvent.tab();
    expect(screen.getByRole('link', { name: '駿河クリニック' })).toHaveFocus();
  });
});
