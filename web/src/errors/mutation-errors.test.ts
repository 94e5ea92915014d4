import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/api-errors.ts';
import { toast } from '../app/toast.ts';
import { somethingWentWrong } from './error-catalogue.ts';
import { errorPageStore } from './error-page-store.ts';
import { handleMutationError, reloadedConflictMessage } from './mutation-errors.ts';

function spies() {
  return {
    toast: vi.spyOn(toast, 'error').mockImplementation(() => {}),
    page: vi.spyOn(errorPageStore, 'show').mockImplementation(() => {}),
    logout: vi.fn(),
  };
}

afterEach(() => vi.restoreAllMocks());

describe('handleMutationError', () => {
  it('leaves a 422 to the form', () => {
    const s = spies();
    handleMutationError(new ApiError(422, '入力内容に誤りがあります。'), s.logout);
    expect(s.toast).not.toHaveBeenCalled();
    expect(s.page).not.toHaveBeenCalled();
  });

  it('shows the 404 page for a record that has gone', () => {
    const s = spies();
    handleMutationError(new ApiError(404, 'x'), s.logout);
    expect(s.page).toHaveBeenCalledWith({ status: 404 });
  });

  it("explains a 409 in the server's words, or in the screen's when it gives its own", () => {
    const s = spies();
    handleMutationError(new ApiError(409, '他の操作と競合しました。'), s.logout);
    handleMutationError(new ApiError(409, '他の操作と競合しました。'), s.logout, {
      conflictMessage: reloadedConflictMessage,
    });
    expect(s.toast.mock.calls).toEqual([['他の操作と競合しました。'], [reloadedConflictMessage]]);
  });

  it('follows the app-wide rules for the rest: 401 signs out, 400 is the generic toast', () => {
    const s = spies();
    handleMutationError(new ApiError(401, 'x'), s.logout);
    expect(s.logout).toHaveBeenCalledOnce();
    handleMutationError(new ApiError(400, 'x'), s.logout);
    expect(s.toast).toHaveBeenCalledWith(somethingWentWrong);
  });
});
