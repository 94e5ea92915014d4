import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Dashboard } from '@renkei/contracts';
import { renderInRouter } from '../../../test/render-in-router.tsx';
import { DashboardPage } from './DashboardPage.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const dashboard = (contents: Dashboard['contents']): Dashboard => ({
  id: id(1),
  name: '月次連携会議',
  filter_department: null,
  medical_institution_label_id: null,
  contents,
  created_by: null,
  updated_at: '2026-04-01T00:00:00.000Z',
  version: 0,
});

const render = (d: Dashboard) =>
  renderInRouter(() => <DashboardPage id={d.id} />, {
    api: {
      getDashboard: vi.fn(async () => d),
      // The cards' own calls are the card's tests' concern: here they stay pending.
      ownDepartmentReportsGetDefinition: vi.fn(() => new Promise(() => {})),
    },
    paths: ['/dashboards', '/dashboards/$id/edit', '/own_department_reports/$id'],
  });

afterEach(() => vi.restoreAllMocks());

describe('dashboard page', () => {
  it('prints: 印刷 opens the print dialog, and on paper the buttons and the frame stay off and wide tables fit', async () => {
    const print = vi.spyOn(window, 'print').mockImplementation(() => {});
    const { container } = render(dashboard([{ report_type: 'own_department_report', report_id: id(3) }]));
    await userEvent.click(await screen.findByRole('button', { name: '印刷' }));
    expect(print).toHaveBeenCalledOnce();
    // The buttons are marked to stay off the paper; the print rules are on the page.
    expect(screen.getByRole('button', { name: '印刷' }).closest('[data-print-hide]')).not.toBeNull();
    expect(screen.getByRole('link', { name: '編集' }).closest('[data-print-hide]')).not.toBeNull();
    expect(screen.getByRole('link', { name: '一覧へ戻る' }).closest('[data-print-hide]')).not.toBeNull();
    expect(container.querySelector('[data-report-print]')).not.toBeNull();
    const css = [...container.querySelectorAll('style')].map((s) => s.textContent).join('\n');
    expect(css).toContain('@media print');
    expect(css).toMatch(/\.mantine-AppShell-navbar[^{]*\{ display: none/);
    expect(css).toMatch(/\[data-report-print\] \.mantine-ScrollArea-viewport \{ overflow: visible !important; \}/);
    expect(css).toMatch(/scrollContainerInner \{ min-width: 0 !important; \}/);
  });

  it('has nothing to print without reports', async () => {
    render(dashboard([]));
    expect(await screen.findByText(/レポートが配置されていません/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '印刷' })).toBeDisabled();
  });
});
