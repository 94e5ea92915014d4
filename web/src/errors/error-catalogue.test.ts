import { describe, expect, it } from 'vitest';
import { describeError, normalizeStatus } from './error-catalogue.ts';

describe('error catalogue (spec §8)', () => {
  it('shows 400 and unknown statuses as 500', () => {
    expect(normalizeStatus(400)).toBe(500);
    expect(normalizeStatus(418)).toBe(500);
    expect(normalizeStatus(502)).toBe(500);
    expect([401, 403, 404, 429, 503].map(normalizeStatus)).toEqual([401, 403, 404, 429, 503]);
  });

  it('reads a 403 as the IP message or the permission message, both pointing to the administrator', () => {
    const ip = describeError(403, 'IP_NOT_ALLOWED');
    expect(ip.summary).toBe('指定されたページは表示できません');
    expect(ip.description).toContain('許可されたIPアドレス以外からのアクセスのため、ページを表示できません。');
    expect(ip.description).toContain('管理者');
    const permission = describeError(403);
    expect(permission.description).toContain('ページを表示するには、アクセス権限が必要です。');
    expect(permission.description).toContain('管理者');
  });

  it('has Japanese texts for every recognised status', () => {
    expect(describeError(404).summary).toBe('ページが見つかりません');
    expect(describeError(429).summary).toBe(describeError(503).summary);
    expect(describeError(500).summary).toBe('一時的なエラーが発生しました');
    expect(describeError(401).summary).toBe('指定されたページは表示できません');
    expect(describeError(500, 'NETWORK').summary).toBe('通信できませんでした');
    expect(describeError(500, 'NETWORK').description).not.toContain('管理者');
  });
});
