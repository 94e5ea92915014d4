import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { CommunicationLabel } from '@renkei/contracts';
import { describe, expect, it, vi } from 'vitest';
import type { LabelCondition } from '../communications-search.ts';
import { LabelConditionField } from './LabelConditionField.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const label = (component_type: CommunicationLabel['component_type']): CommunicationLabel => ({
  id: id(1),
  name: '同行人数',
  communication_type: 'visit',
  component_type,
  order: 0,
  description: '',
  selections: [
    { id: id(2), label: '紹介依頼', order: 0 },
    { id: id(3), label: '挨拶', order: 1 },
  ],
  is_required: false,
  version: 0,
});

function renderField(type: CommunicationLabel['component_type'], condition: LabelCondition = { label_id: id(1) }) {
  const onChange = vi.fn();
  render(
    <MantineProvider>
      <LabelConditionField
        label={label(type)}
        condition={condition}
        onChange={onChange}
        onRemove={vi.fn()}
        ownDepartments={[]}
      />
    </MantineProvider>,
  );
  return onChange;
}

describe('LabelConditionField', () => {
  it('applies an integer range when the field is left, not per key', async () => {
    const onChange = renderField('integer');
    await userEvent.type(screen.getByLabelText('同行人数（最小）'), '2');
    await userEvent.type(screen.getByLabelText('同行人数（最大）'), '12');
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenLastCalledWith({ label_id: id(1), integer_min: 2 });
    await userEvent.tab();
    expect(onChange).toHaveBeenLastCalledWith({ label_id: id(1), integer_min: 2, integer_max: 12 });
  });

  it('keeps a reversed range on screen with its message and does not apply it', async () => {
    const onChange = renderField('integer', { label_id: id(1), integer_min: 5 });
    await userEvent.type(screen.getByLabelText('同行人数（最大）'), '3{Enter}');
    expect(screen.getByText('最大値は最小値以上を入力してください')).toBeInTheDocument();
    expect(onChange).not.toHaveBeenCalled();
  });

  it('applies a date range at once, and a reversed one not', async () => {
    const onChange = renderField('date', { label_id: id(1), date_from: '2026-04-10' });
    const to = screen.getByLabelText('同行人数（終了）');
    await userEvent.type(to, '2026-04-01');
    expect(screen.getByText('終了日は開始日以降を入力してください')).toBeInTheDocument();
    expect(onChange).not.toHaveBeenCalled();
    await userEvent.clear(to);
    await userEvent.type(to, '2026-04-30');
    expect(onChange).toHaveBeenLastCalledWith({ label_id: id(1), date_from: '2026-04-10', date_to: '2026-04-30' });
  });

  it('offers the choices of a choice label and 未入力 instead of a value', async () => {
    const onChange = renderField('radio', { label_id: id(1), selection_ids: [id(2)] });
    expect(screen.getByDisplayValue(id(2))).toBeInTheDocument();
    await userEvent.click(screen.getByLabelText('未入力のもの'));
    expect(onChange).toHaveBeenLastCalledWith({ label_id: id(1), is_empty: true });
  });
});
