import { describe, expect, it } from 'vitest';
import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import { InstitutionTable, type InstitutionTableProps } from './InstitutionTable.tsx';

function renderTable(props: Partial<InstitutionTableProps> = {}) {
  const all: InstitutionTableProps = {
    rows: [],
    columns: ['name', 'facility_type', 'last_visit_date'],
    sortBy: 'name',
    sort: 'asc',
    onSort: () => {},
    ...props,
  };
  const view = render(
    <MantineProvider>
      <InstitutionTable {...all} />
    </MantineProvider>,
  );
  return {
    rerender: (next: Partial<InstitutionTableProps>) =>
      view.rerender(
        <MantineProvider>
          <InstitutionTable {...all} {...next} />
        </MantineProvider>,
      ),
  };
}

describe('institution table headers', () => {
  it('says the sort order on the column header, not on its button', () => {
    renderTable({ sortBy: 'last_visit_date', sort: 'desc' });
    const headers = screen.getAllByRole('columnheader');
    expect(headers.map((h) => h.getAttribute('aria-sort'))).toEqual(['none', null, 'descending']);
    expect(screen.getByTestId('sort-last_visit_date')).not.toHaveAttribute('aria-sort');
  });

  it('keeps the same button, and the focus on it, when the order changes', () => {
    const { rerender } = renderTable();
    const button = screen.getByTestId('sort-name');
    button.focus();
    rerender({ sort: 'desc' });
    expect(screen.getByTestId('sort-name')).toBe(button);
    expect(button).toHaveFocus();
    expect(screen.getAllByRole('columnheader')[0]).toHaveAttribute('aria-sort', 'descending');
  });
});
