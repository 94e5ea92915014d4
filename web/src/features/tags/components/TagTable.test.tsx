import { describe, expect, it } from 'vitest';
import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import type { Tag } from '@renkei/contracts';
import { TagTable } from './TagTable.tsx';

const tag = {
  id: '00000000-0000-4000-8000-000000000001',
  name: '紹介多い',
  description: null,
  group_name: null,
  medical_institution_count: 3,
} as unknown as Tag;

describe('tag table', () => {
  it('says the order on the name column header, and the button says what it does', () => {
    const { rerender } = render(
      <MantineProvider>
        <TagTable tags={[tag]} sort="asc" onToggleSort={() => {}} onEdit={() => {}} onDelete={() => {}} />
      </MantineProvider>,
    );
    expect(screen.getAllByRole('columnheader')[0]).toHaveAttribute('aria-sort', 'ascending');
    expect(screen.getByRole('button', { name: 'タグ名で並べ替え' })).not.toHaveAttribute('aria-sort');
    rerender(
      <MantineProvider>
        <TagTable tags={[tag]} sort="desc" onToggleSort={() => {}} onEdit={() => {}} onDelete={() => {}} />
      </MantineProvider>,
    );
    expect(screen.getAllByRole('columnheader')[0]).toHaveAttribute('aria-sort', 'descending');
  });
});
