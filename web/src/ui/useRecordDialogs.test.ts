import { describe, expect, it, vi } from 'vitest';
import { act, renderHook } from '@testing-library/react';
import { ApiError } from '../api/api-errors.ts';
import { useRecordDialogs } from './useRecordDialogs.ts';

type Rec = { id: string; version: number };
const rec: Rec = { id: 'r1', version: 3 };
const messages = { created: '作成', updated: '更新', deleted: '削除' };

function setup(fail?: unknown) {
  const mutation = () => ({ mutateAsync: vi.fn(async () => (fail ? Promise.reject(fail) : undefined)) });
  const create = mutation();
  const update = mutation();
  const remove = mutation();
  const onError = vi.fn();
  const hook = renderHook(() => useRecordDialogs<Rec, string>({ create, update, remove, messages, onError }));
  return { hook, create, update, remove, onError };
}

describe('useRecordDialogs', () => {
  it('updates the record being edited with its version, then closes the dialog', async () => {
    const { hook, create, update } = setup();
    act(() => hook.result.current.setEditing({ record: rec }));
    await act(() => hook.result.current.save('body'));
    expect(update.mutateAsync).toHaveBeenCalledWith({ id: 'r1', version: 3, body: 'body' });
    expect(create.mutateAsync).not.toHaveBeenCalled();
    expect(hook.result.current.editing).toBeNull();
  });

  it('creates when the dialog is open for a new record', async () => {
    const { hook, create, update } = setup();
    act(() => hook.result.current.setEditing({ record: null }));
    await act(() => hook.result.current.save('body'));
    expect(create.mutateAsync).toHaveBeenCalledWith('body');
    expect(update.mutateAsync).not.toHaveBeenCalled();
  });

  it('keeps the form open on a 422 and rethrows it without reporting it', async () => {
    const invalid = new ApiError(422, '入力内容に誤りがあります。');
    const { hook, onError } = setup(invalid);
    act(() => hook.result.current.setEditing({ record: null }));
    await act(() => expect(hook.result.current.save('body')).rejects.toBe(invalid));
    expect(hook.result.current.editing).toEqual({ record: null });
    expect(onError).not.toHaveBeenCalled();
  });

  it('closes the form and reports any other failure', async () => {
    const conflict = new ApiError(409, '競合');
    const { hook, onError } = setup(conflict);
    act(() => hook.result.current.setEditing({ record: rec }));
    await act(() => expect(hook.result.current.save('body')).rejects.toBe(conflict));
    expect(hook.result.current.editing).toBeNull();
    expect(onError).toHaveBeenCalledWith(conflict);
  });

  it('deletes the confirmed record with its version and closes the confirmation even on failure', async () => {
    const gone = new ApiError(404, 'なし');
    const { hook, remove, onError } = setup(gone);
    act(() => hook.result.current.setDeleting(rec));
    await act(() => hook.result.current.confirmDelete());
    expect(remove.mutateAsync).toHaveBeenCalledWith({ id: 'r1', version: 3 });
    expect(onError).toHaveBeenCalledWith(gone);
    expect(hook.result.current.deleting).toBeNull();
  });
});
