import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../api/api-errors.ts';
import { onCaughtError } from './error-reporting.ts';

afterEach(() => vi.restoreAllMocks());

describe('onCaughtError', () => {
  it('keeps a refused or missing page (an API answer below 500) out of the console, and logs anything else', () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    onCaughtError(new ApiError(403, 'この操作を行う権限がありません'), { componentStack: '' });
    onCaughtError(new ApiError(404, 'not found'), {});
    expect(log).not.toHaveBeenCalled();
    const failure = new ApiError(500, 'server');
    onCaughtError(failure, { componentStack: '\n    at Page' });
    const bug = new TypeError('x is undefined');
    onCaughtError(bug, {});
    expect(log.mock.calls).toEqual([
      [failure, '\n    at Page'],
      [bug, ''],
    ]);
  });
});
