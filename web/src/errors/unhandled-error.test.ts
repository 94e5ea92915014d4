import { describe, expect, it, vi } from 'vitest';
import { ApiError, networkSubCode } from '../api/api-errors.ts';
import { couldNotConnect, somethingWentWrong } from './error-catalogue.ts';
import { handleUnhandledError } from './unhandled-error.ts';

const handlers = () => ({ logoutRedirect: vi.fn(), showErrorPage: vi.fn(), report: vi.fn(), toastError: vi.fn() });

describe('unhandled fetch errors (spec §8)', () => {
  it('signs out by redirect on 401', () => {
    const h = handlers();
    handleUnhandledError(new ApiError(401, 'x'), h);
    expect(h.logoutRedirect).toHaveBeenCalledOnce();
    expect(h.showErrorPage).not.toHaveBeenCalled();
  });

  it('shows the 403 page with its sub code', () => {
    const h = handlers();
    handleUnhandledError(new ApiError(403, 'x', 'IP_NOT_ALLOWED'), h);
    expect(h.showErrorPage).toHaveBeenCalledWith(403, 'IP_NOT_ALLOWED');
    expect(h.report).not.toHaveBeenCalled();
  });

  it('reports 500 and above, and anything that is not an API answer', () => {
    const h = handlers();
    handleUnhandledError(new ApiError(503, 'busy'), h);
    handleUnhandledError(new Error('boom'), h);
    expect(h.report).toHaveBeenCalledTimes(2);
  });

  it('says a call without an answer (offline) could not connect, and reports nothing', () => {
    const h = handlers();
    handleUnhandledError(new ApiError(500, '一時的なエラーが発生しました。', networkSubCode), h);
    expect(h.toastError).toHaveBeenCalledWith(couldNotConnect);
    expect(h.report).not.toHaveBeenCalled();
  });

  it('answers other statuses with the generic message and no report', () => {
    const h = handlers();
    handleUnhandledError(new ApiError(409, 'conflict'), h);
    expect(h.toastError).toHaveBeenCalledWith(somethingWentWrong);
    expect(h.report).not.toHaveBeenCalled();
    expect(h.logoutRedirect).not.toHaveBeenCalled();
  });
});
