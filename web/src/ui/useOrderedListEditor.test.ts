import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import type { FormEvent } from 'react';
import { ApiError } from '../api/api-errors.ts';
import { toast } from '../app/toast.ts';
import { useOrderedListEditor, useOrderedListForm } from './useOrderedListEditor.ts';

type Entry = { id?: string; name: string; note: string };
const a: Entry = { id: 'a', name: 'A', note: '' };
const b: Entry = { id: 'b', name: 'B', note: '' };
const c: Entry = { id: 'c', name: 'C', note: '' };
const messages = { added: '追加', updated: '更新', deleted: '削除', reordered: '並び替え' };
const invalid = (...errors: { field: string; message: string }[]) =>
  new ApiError(422, '入力内容に誤りがあります。', undefined, errors);

function setup(fail?: unknown, drafts: readonly Entry[] = [a, b, c]) {
  const replace = { mutateAsync: vi.fn(async () => (fail ? Promise.reject(fail) : undefined)) };
  const onError = vi.fn();
  const validate = vi.fn((d: Entry): Partial<Record<'name' | 'note', string>> =>
    d.name.trim() ? {} : { name: '必須' },
  );
  const hook = renderHook(() =>
    useOrderedListEditor({
      drafts,
      replace,
      validate,
      max: 3,
      messages,
      onError,
      serverFields: { list: 'entries', fields: ['name', 'note'] },
    }),
  );
  const sent = () => (replace.mutateAsync.mock.lastCall as unknown as [{ next: Entry[] }] | undefined)?.[0].next;
  return { hook, replace, onError, validate, sent };
}

let success: ReturnType<typeof vi.spyOn>;
let error: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  success = vi.spyOn(toast, 'success').mockImplementation(() => {});
  error = vi.spyOn(toast, 'error').mockImplementation(() => {});
});
afterEach(() => vi.restoreAllMocks());

describe('useOrderedListEditor', () => {
  it('is full at the maximum count', () => {
    expect(setup().hook.result.current.full).toBe(true);
    expect(setup(undefined, [a, b]).hook.result.current.full).toBe(false);
  });

  it('adds a trimmed entry at the end against the list it was based on, then closes the form', async () => {
    const { hook, replace, validate } = setup(undefined, [a, b]);
    act(() => hook.result.current.setEditing({ index: null }));
    const errors = await act(() => hook.result.current.submitForm({ name: ' D ', note: 'x' }));
    expect(errors).toBeNull();
    expect(validate).toHaveBeenCalledWith({ name: ' D ', note: 'x' }, [a, b]);
    expect(replace.mutateAsync).toHaveBeenCalledWith({ next: [a, b, { name: 'D', note: 'x' }], basedOn: [a, b] });
    expect(success).toHaveBeenCalledWith('追加');
    expect(hook.result.current.editing).toBeNull();
  });

  it('replaces the edited entry in place, checked against the others only', async () => {
    const { hook, sent, validate } = setup();
    act(() => hook.result.current.setEditing({ index: 1 }));
    expect(hook.result.current.edited).toBe(b);
    await act(() => hook.result.current.submitForm({ ...b, name: 'B2' }));
    expect(validate).toHaveBeenCalledWith({ ...b, name: 'B2' }, [a, c]);
    expect(sent()).toEqual([a, { ...b, name: 'B2' }, c]);
    expect(success).toHaveBeenCalledWith('更新');
  });

  it('answers the local errors without saving', async () => {
    const { hook, replace } = setup();
    act(() => hook.result.current.setEditing({ index: null }));
    expect(await act(() => hook.result.current.submitForm({ name: ' ', note: '' }))).toEqual({ name: '必須' });
    expect(replace.mutateAsync).not.toHaveBeenCalled();
    expect(hook.result.current.editing).toEqual({ index: null });
  });

  it('keeps the form open with the 422 messages of its own row only', async () => {
    const { hook, onError } = setup(
      invalid(
        { field: 'entries.0.name', message: '別の行' },
        { field: 'entries.2.note', message: '説明が長すぎます' },
        { field: 'entries.2.note', message: '二つ目' },
        { field: 'others.2.name', message: '別の一覧' },
      ),
      [a, b],
    );
    act(() => hook.result.current.setEditing({ index: null }));
    // A new entry is the last row of the list sent: index 2.
    expect(await act(() => hook.result.current.submitForm({ name: 'D', note: '…' }))).toEqual({
      note: '説明が長すぎます',
    });
    expect(onError).toHaveBeenCalled();
    expect(hook.result.current.editing).toEqual({ index: null });
  });

  it('shows a 422 without a field of the row on the name', async () => {
    const { hook } = setup(invalid({ field: 'entries', message: '3件まで' }));
    act(() => hook.result.current.setEditing({ index: 0 }));
    expect(await act(() => hook.result.current.submitForm({ ...a, name: 'A2' }))).toEqual({ name: '3件まで' });
  });

  it('closes the form on any other failure, which goes to onError', async () => {
    const conflict = new ApiError(409, '競合');
    const { hook, onError } = setup(conflict);
    act(() => hook.result.current.setEditing({ index: 0 }));
    expect(await act(() => hook.result.current.submitForm({ ...a, name: 'A2' }))).toBeNull();
    expect(onError).toHaveBeenCalledWith(conflict);
    expect(success).not.toHaveBeenCalled();
    expect(hook.result.current.editing).toBeNull();
  });

  it('moves an entry to the top and to the bottom', async () => {
    const { hook, sent } = setup();
    await act(() => hook.result.current.move(2, 0));
    expect(sent()).toEqual([c, a, b]);
    await act(() => hook.result.current.move(0, 2));
    expect(sent()).toEqual([b, c, a]);
    expect(success).toHaveBeenCalledWith('並び替え');
  });

  it('toasts a 422 on a reorder, which has no form', async () => {
    const { hook, onError } = setup(invalid({ field: 'entries.1.name', message: '重複しています' }));
    await act(() => hook.result.current.move(1, 0));
    expect(onError).toHaveBeenCalled();
    expect(error).toHaveBeenCalledWith('重複しています');
  });

  it('deletes the confirmed entry and closes the confirmation even on failure', async () => {
    const { hook, sent } = setup(invalid());
    act(() => hook.result.current.setDeleting(1));
    await act(() => hook.result.current.confirmDelete());
    expect(sent()).toEqual([a, c]);
    // A 422 without field errors says the server's message.
    expect(error).toHaveBeenCalledWith('入力内容に誤りがあります。');
    expect(hook.result.current.deleting).toBeNull();
  });
});

describe('useOrderedListForm', () => {
  const blank: Entry = { name: '', note: '' };
  const event = { preventDefault: () => {} } as FormEvent;

  it('starts from the entry when it opens and submits it with its id, keeping the errors answered', async () => {
    const onSubmit = vi.fn(async () => ({ name: '重複しています' }));
    const hook = renderHook(
      (props: { opened: boolean; draft: Entry | null }) => useOrderedListForm({ ...props, blank, onSubmit }),
      { initialProps: { opened: true, draft: b as Entry | null } },
    );
    expect(hook.result.current.values).toEqual(b);
    act(() => hook.result.current.set('name', 'B2'));
    await act(() => hook.result.current.submit(event));
    expect(onSubmit).toHaveBeenCalledWith({ id: 'b', name: 'B2', note: '' });
    expect(hook.result.current.errors).toEqual({ name: '重複しています' });
    expect(hook.result.current.saving).toBe(false);

    // Opened again for a new entry: blank values, no errors.
    hook.rerender({ opened: false, draft: null });
    hook.rerender({ opened: true, draft: null });
    expect(hook.result.current.values).toEqual(blank);
    expect(hook.result.current.errors).toEqual({});
  });
});
