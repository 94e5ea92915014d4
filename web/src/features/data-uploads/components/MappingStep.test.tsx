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

  it('shows under each column name of a file with a header what the column holds, the name staying the option’s', async () => {
    const head: FileHead = {
      header: ['依頼日', '医療機関', '医療機関CD', '備考'],
      rows: [
        ['R8.5.10', '藤田内科クリニック', '2211710005', ''],
        ['R8.6.1', 'さくら皮膚科', '', ''],
      ],
    };
    renderStep(head);
    const list = await open('紹介元医療機関コード');
    const options = list.getAllByRole('option', { hidden: true });
    expect(options.map((o) => o.textContent)).toEqual([
      '依頼日R8.5.10、R8.6.1',
      '医療機関藤田内科クリニック、さくら皮膚科',
      '医療機関CD2211710005',
      // A column empty in the first rows shows its name alone.
      '備考',
    ]);
    await userEvent.click(list.getByRole('option', { name: '医療機関CD', hidden: true }));
    expect(screen.getByRole('combobox', { name: '紹介元医療機関コード' })).toHaveValue('医療機関CD');
  });
});

describe('a list uploaded on the other list’s card', () => {
  it('warns of a 逆紹介 list on the 紹介 card, and of a 紹介 list on the 逆紹介 card, not of the right list', async () => {
    const reverse: FileHead = {
      header: ['逆紹介年月日', '患者番号', '紹介先医療機関名'],
      rows: [['2024/05/12', '1', 'A']],
    };
    const { unmount } = render(
      <MantineProvider>
        <MappingStep type="referral" head={reverse} initial={{}} saving={false} onSubmit={vi.fn()} onCancel={vi.fn()} />
      </MantineProvider>,
    );
    expect(screen.getByTestId('mapping-other-list')).toHaveTextContent(
      '逆紹介リストのようですこのファイルには「逆紹介年月日」の列があります。逆紹介リストなら、キャンセルして「逆紹介リスト」のカードからアップロードしてください。',
    );
    unmount();
    const referral: FileHead = { header: ['紹介年月日', 'カルテ番号', '紹介元病院名'], rows: [['R6.4.1', '1', 'A']] };
    const { unmount: again } = render(
      <MantineProvider>
        <MappingStep
          type="reverse_referral"
          head={referral}
          initial={{}}
          saving={false}
          onSubmit={vi.fn()}
          onCancel={vi.fn()}
        />
      </MantineProvider>,
    );
    expect(screen.getByTestId('mapping-other-list')).toHaveTextContent('紹介リストのようです');
    expect(screen.getByTestId('mapping-other-list')).toHaveTextContent('「紹介元病院名」の列があります');
    again();
    renderStep({ header: ['紹介年月日', 'カルテ番号', '紹介元病院名'], rows: [] });
    expect(screen.queryByTestId('mapping-other-list')).toBeNull();
  });

  it('does not take a 逆紹介 list naming its own side 紹介元診療科 for a 紹介 list', () => {
    render(
      <MantineProvider>
        <MappingStep
          type="reverse_referral"
          head={{ header: ['逆紹介日', '患者ID', '紹介先医療機関名', '紹介元診療科', '紹介元医師'], rows: [] }}
          initial={{}}
          saving={false}
          onSubmit={vi.fn()}
          onCancel={vi.fn()}
        />
      </MantineProvider>,
    );
    expect(screen.queryByTestId('mapping-other-list')).toBeNull();
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
