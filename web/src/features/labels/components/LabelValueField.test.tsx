import { MantineProvider } from '@mantine/core';
import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { LabelComponentType, MedicalInstitutionLabel } from '@renkei/contracts';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { displayLabelValue, emptyLabelValue, toLabelValueInput, type LabelValueDraft } from '../label-values.ts';
import { LabelValueField } from './LabelValueField.tsx';

const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

function label(
  component_type: LabelComponentType,
  extra: Partial<MedicalInstitutionLabel> = {},
): MedicalInstitutionLabel {
  return {
    id: id(1),
    name: '連携窓口',
    description: '',
    component_type,
    order: 1,
    selections: [
      { id: id(11), label: '地域連携室', order: 2 },
      { id: id(10), label: '医事課', order: 1 },
    ],
    areas: [{ id: id(20), name: '中部', addresses: [{ prefecture: '22', city_or_locality: '静岡市' }] }],
    version: 1,
    ...extra,
  };
}

const ownDepartments = [{ id: id(30), name: '循環器内科', department_id: null, order: 1 }];

/** Renders the field as a controlled input and records every value it emits. */
function renderField(l: MedicalInstitutionLabel, initial: LabelValueDraft = emptyLabelValue(l.id)) {
  const onChange = vi.fn();
  function Harness() {
    const [value, setValue] = useState(initial);
    return (
      <LabelValueField
        label={l}
        value={value}
        ownDepartments={ownDepartments}
        error={undefined}
        onChange={(next) => {
          onChange(next);
          setValue(next);
        }}
      />
    );
  }
  render(
    <MantineProvider>
      <Harness />
    </MantineProvider>,
  );
  return onChange;
}

describe('label value inputs', { timeout: 20_000 }, () => {
  it('text: a text box that fills text_value', async () => {
    const onChange = renderField(label('text'));
    await userEvent.type(screen.getByRole('textbox', { name: '連携窓口' }), '山田');
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ text_value: '山田' }));
  });

  it('textarea: a multi-line box', () => {
    renderField(label('textarea'));
    expect(screen.getByRole('textbox', { name: '連携窓口' }).tagName).toBe('TEXTAREA');
  });

  it('integer: accepts whole numbers only and fills integer_value', async () => {
    const onChange = renderField(label('integer'));
    await userEvent.type(screen.getByRole('textbox', { name: '連携窓口' }), '12.5');
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ integer_value: 125 }));
  });

  it('radio: one choice per selection, in the label order, fills selection_id', async () => {
    const onChange = renderField(label('radio'));
    const radios = screen.getAllByRole('radio');
    expect(radios.map((r) => r.getAttribute('value'))).toEqual([id(10), id(11)]);
    await userEvent.click(screen.getByRole('radio', { name: '地域連携室' }));
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ selection_id: id(11) }));
  });

  it('checkbox: several choices fill selection_ids', async () => {
    const onChange = renderField(label('checkbox'));
    await userEvent.click(screen.getByRole('checkbox', { name: '医事課' }));
    await userEvent.click(screen.getByRole('checkbox', { name: '地域連携室' }));
    expect(onChange).toHaveBeenLastCalledWith(expect.objectContaining({ selection_ids: [id(10), id(11)] }));
  });

  it('date and time: native pickers filling date_value and time_value', () => {
    const onDate = renderField(label('date'));
    const dateInput = screen.getByLabelText('連携窓口');
    expect(dateInput).toHaveAttribute('type', 'date');
    fireEvent.change(dateInput, { target: { value: '2026-04-01' } });
    expect(onDate).toHaveBeenLastCalledWith(expect.objectContaining({ date_value: '2026-04-01' }));
  });

  it('time: HH:MM', () => {
    const onTime = renderField(label('time', { name: '面会可能時刻' }));
    const input = screen.getByLabelText('面会可能時刻');
    expect(input).toHaveAttribute('type', 'time');
    fireEvent.change(input, { target: { value: '13:30' } });
    expect(onTime).toHaveBeenLastCalledWith(expect.objectContaining({ time_value: '13:30' }));
  });

  it('select, own_department and area show their current choice by name', () => {
    renderField(label('select'), { ...emptyLabelValue(id(1)), selection_id: id(11) });
    expect(screen.getByDisplayValue('地域連携室')).toBeInTheDocument();
  });

  it('own_department lists the own hospital departments', () => {
    renderField(label('own_department'), { ...emptyLabelValue(id(1)), own_department_id: id(30) });
    expect(screen.getByDisplayValue('循環器内科')).toBeInTheDocument();
  });

  it('area lists the label areas', () => {
    renderField(label('area'), { ...emptyLabelValue(id(1)), area_id: id(20) });
    expect(screen.getByDisplayValue('中部')).toBeInTheDocument();
  });

  it('shows the error message given for the field', () => {
    render(
      <MantineProvider>
        <LabelValueField
          label={label('integer')}
          value={emptyLabelValue(id(1))}
          ownDepartments={[]}
          error="整数を入力してください"
          onChange={() => {}}
        />
      </MantineProvider>,
    );
    expect(screen.getByText('整数を入力してください')).toBeInTheDocument();
  });
});

describe('label values sent and shown', () => {
  it('sends only the field of the component type, clearing stale ones', () => {
    const draft = { ...emptyLabelValue(id(1)), text_value: '古い値', selection_id: id(10), selection_ids: [id(11)] };
    expect(toLabelValueInput(label('select'), draft)).toEqual({ ...emptyLabelValue(id(1)), selection_id: id(10) });
    expect(toLabelValueInput(label('text'), { ...draft, text_value: '' })).toEqual(emptyLabelValue(id(1)));
  });

  it('shows checkbox values in the label order and dates with slashes', () => {
    expect(displayLabelValue(label('checkbox'), { ...emptyLabelValue(id(1)), selection_ids: [id(11), id(10)] })).toBe(
      '医事課、地域連携室',
    );
    expect(displayLabelValue(label('date'), { ...emptyLabelValue(id(1)), date_value: '2026-04-01' })).toBe(
      '2026/04/01',
    );
    expect(displayLabelValue(label('integer'), { ...emptyLabelValue(id(1)), integer_value: 12000 })).toBe('12,000');
    expect(
      displayLabelValue(
        label('own_department'),
        { ...emptyLabelValue(id(1)), own_department_id: id(30) },
        ownDepartments,
      ),
    ).toBe('循環器内科');
  });
});
