import { MantineProvider } from '@mantine/core';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { FileHead } from '../file-head.ts';
import { initialListMapping } from '../list-mapping.ts';
import { MappingStep } from './MappingStep.tsx';

const headerless: FileHead = {
  header: null,
  rows: [
    ['しずおか内科', 'R6.4.1', '00012', '循環器内科'],
    ['はままつ整形外科', 'R6.4.2', '13', '整形外科'],
  ],
};

function renderStep(head: FileHead, initial: Record<string, string | number> = {}) {
  const onSubmit = vi.fn();
  render(
    <MantineProvider>
      <MappingStep
        type="referral"
        head={head}
        initial={initial}
        saving={false}
        onSubmit={onSubmit}
        onCancel={vi.fn()}
      />
    </MantineProvider>,
  );
  return onSubmit;
}

/** Opens a column's select and answers its own list of options (every select keeps its list in the page). */
async function open(label: string) {
  const input = screen.getByRole('combobox', { name: label });
  await userEvent.click(input);
  const id = input.getAttribute('aria-controls');
  const listbox = id ? document.getElementById(id) : null;
  if (!listbox) throw new Error(`no list of options for ${label}`);
  return within(listbox);
}

async function choose(label: string, option: string | RegExp) {
  await userEvent.click((await open(label)).getByRole('option', { name: option, hidden: true }));
}

describe('MappingStep', () => {
  it('maps a file without a header by position: 「1列目」… with its first values, sent as 1-based numbers', async () => {
    const onSubmit = renderStep(headerless);
    expect(screen.getByTestId('mapping-by-position')).toHaveTextContent('見出し行がありません');
    const save = screen.getByRole('button', { name: '対応付けを保存して取り込む' });
    expect(save).toBeDisabled();
    const list = await open('紹介日 *');
    const options = list.getAllByRole('option', { hidden: true }).map((o) => o.textContent);
    expect(options).toEqual([
      '1列目（しずおか内科、はままつ整形外科）',
      '2列目（R6.4.1、R6.4.2）',
      '3列目（00012、13）',
      '4列目（循環器内科、整形外科）',
    ]);
    await userEvent.click(list.getByRole('option', { name: /^2列目/, hidden: true }));
    await choose('患者ID *', /^3列目/);
    await choose('紹介元医療機関名', /^1列目/);
    // The preview reads the rows through the positions chosen.
    const preview = screen.getByTestId('mapping-preview');
    expect(within(preview).getAllByRole('row')[1]).toHaveTextContent('R6.4.100012しずおか内科');
    await userEvent.click(save);
    expect(onSubmit).toHaveBeenCalledWith({ 紹介日: 2, 患者ID: 3, 紹介元医療機関名: 1 });
  });

  it('maps a file with a header by column name', async () => {
    const head: FileHead = { header: ['紹介年月日', 'カルテ番号', '病院名'], rows: [['R6.4.1', '12', 'A医院']] };
    const onSubmit = renderStep(head, { 紹介日: '紹介年月日', 患者ID: 'カルテ番号' });
    expect(screen.queryByTestId('mapping-by-position')).toBeNull();
    await choose('紹介元医療機関名', '病院名');
    await userEvent.click(screen.getByRole('button', { name: '対応付けを保存して取り込む' }));
    expect(onSubmit).toHaveBeenCalledWith({ 紹介日: '紹介年月日', 患者ID: 'カルテ番号', 紹介元医療機関名: '病院名' });
  });
});

describe('initialListMapping', () => {
  it('keeps a saved mapping’s positions within a file without a header, and drops its names', () => {
    expect(initialListMapping('referral', headerless, { 紹介日: 2, 患者ID: '患者番号', 紹介先診療科: 9 })).toEqual({
      紹介日: 2,
    });
  });

  it('with a header: same-named columns, saved names the file has, saved positions as the header name there', () => {
    const head: FileHead = { header: ['患者ID', '日付', '病院'], rows: [] };
    expect(initialListMapping('referral', head, { 紹介日: '日付', 紹介元医療機関名: 3, 紹介先診療科: '科' })).toEqual({
      患者ID: '患者ID',
      紹介日: '日付',
      紹介元医療機関名: '病院',
    });
  });

  it('proposes nothing over a saved mapping the file fits: no column feeds two, nothing left unmapped is filled', () => {
    const head: FileHead = { header: ['紹介日', '患者番号', '紹介元', '診療科', '担当医'], rows: [] };
    const saved = { 紹介日: '紹介日', 患者ID: '患者番号', 紹介元医療機関名: '紹介元', 紹介元診療科: '診療科' };
    expect(initialListMapping('referral', head, saved)).toEqual(saved);
    // A file of another layout, which the saved mapping does not fit at all: proposed as the import reads it.
    expect(initialListMapping('referral', { header: ['受付年月日', 'カルテNO'], rows: [] }, saved)).toEqual({
      紹介日: '受付年月日',
      患者ID: 'カルテNO',
    });
  });

  it('proposes the columns of a hospital’s own names as the import reads them, before any mapping is saved', () => {
    const head: FileHead = { header: ['受付年月日(和暦)', 'カルテNO', '紹介元病院名', '受診科', '備考'], rows: [] };
    expect(initialListMapping('referral', head, undefined)).toEqual({
      紹介日: '受付年月日(和暦)',
      患者ID: 'カルテNO',
      紹介元医療機関名: '紹介元病院名',
      紹介先診療科: '受診科',
    });
    expect(
      initialListMapping('reverse_referral', { header: ['逆紹介日', '患者番号', '紹介先'], rows: [] }, undefined),
    ).toEqual({ 逆紹介日: '逆紹介日', 患者ID: '患者番号', 逆紹介先医療機関名: '紹介先' });
  });
});
