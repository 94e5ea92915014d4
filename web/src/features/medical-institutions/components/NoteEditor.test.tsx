import { MantineProvider } from '@mantine/core';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { MedicalInstitutionNote } from '@renkei/contracts';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../api/api-errors.ts';
import { labelErrorsByIndex } from './InstitutionLabelValues.tsx';
import { NoteEditor } from './NoteEditor.tsx';

const note = (content: string, version: number): MedicalInstitutionNote => ({
  medical_institution_id: '00000000-0000-4000-8000-000000000001',
  content,
  updated_by: { id: '00000000-0000-4000-8000-000000000002', name: '佐藤 美咲' },
  updated_at: '2026-04-01T01:00:00Z',
  version,
});

function Harness({ onSave }: { onSave: (content: string, version: number) => Promise<unknown> }) {
  const [current, setCurrent] = useState(note('最初のメモ', 1));
  return (
    <MantineProvider>
      <NoteEditor
        title="メモ"
        testId="memo"
        maxLength={100}
        note={current}
        onSave={onSave}
        onError={() => {}}
        // A reload after a conflict brings the other person's text and the new version.
        onConflict={async () => setCurrent(note('他の人のメモ', 2))}
      />
    </MantineProvider>
  );
}

describe('memo editor', { timeout: 20_000 }, () => {
  it('shows who changed it and when, in Asia/Tokyo', () => {
    render(<Harness onSave={async () => {}} />);
    expect(screen.getByText('最終更新: 佐藤 美咲（2026/04/01 10:00）')).toBeInTheDocument();
  });

  it('on a 409 says someone else updated it, reloads, keeps the draft and saves against the new version', async () => {
    const onSave = vi
      .fn<(content: string, version: number) => Promise<unknown>>()
      .mockRejectedValueOnce(new ApiError(409, '競合しました'))
      .mockResolvedValueOnce(undefined);
    render(<Harness onSave={onSave} />);
    await userEvent.click(screen.getByRole('button', { name: 'メモを編集' }));
    const input = screen.getByRole('textbox', { name: 'メモ' });
    await userEvent.clear(input);
    await userEvent.type(input, '私の変更');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('他の人が更新しました')).toBeInTheDocument();
    expect(screen.getByTestId('memo-conflict')).toHaveTextContent('他の人のメモ');
    expect(screen.getByRole('textbox', { name: 'メモ' })).toHaveValue('私の変更');
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(onSave).toHaveBeenNthCalledWith(1, '私の変更', 1);
    expect(onSave).toHaveBeenNthCalledWith(2, '私の変更', 2);
  });

  it('puts a 422 message on the field and keeps editing', async () => {
    render(
      <Harness
        onSave={async () => {
          throw new ApiError(422, '入力内容に誤りがあります。', undefined, [
            { field: 'content', message: 'メモは10000文字以内で入力してください' },
          ]);
        }}
      />,
    );
    await userEvent.click(screen.getByRole('button', { name: 'メモを編集' }));
    await userEvent.click(screen.getByRole('button', { name: '保存' }));
    expect(await screen.findByText('メモは10000文字以内で入力してください')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'メモ' })).toBeInTheDocument();
  });
});

describe('label value errors', () => {
  it('maps 422 field paths to the label row, in either notation', () => {
    expect(
      labelErrorsByIndex([
        { field: 'label_values.2.integer_value', message: '整数を入力してください' },
        { field: 'label_values[0].selection_id', message: '選択肢が見つかりません' },
        { field: 'other', message: 'x' },
      ]),
    ).toEqual({ 2: '整数を入力してください', 0: '選択肢が見つかりません' });
  });
});
