import { describe, expect, it } from 'vitest';
import { documentTitle, isPhoneSupported, resolveLayout } from './page-meta.ts';

describe('page meta', () => {
  it('titles pages "<page title> | Renkei"', () => {
    expect(documentTitle('タグ管理')).toBe('タグ管理 | Renkei');
    expect(documentTitle(undefined)).toBe('Renkei');
  });

  it('supports exactly the four phone pages of the spec', () => {
    for (const path of ['/medical_institutions_search', '/crms/abc', '/crms/abc/communications', '/communications']) {
      expect(isPhoneSupported(path), path).toBe(true);
    }
    for (const path of ['/tags', '/profile', '/crms/abc/tasks', '/communications/new', '/data_analysis', '/']) {
      expect(isPhoneSupported(path), path).toBe(false);
    }
  });

  it('merges a page layout over the default', () => {
    expect(resolveLayout({ layout: { phone: 'no-padding', stickyHeader: { desktop: false, phone: true } } })).toEqual({
      desktop: 'padded',
      phone: 'no-padding',
      stickyHeader: { desktop: false, phone: true },
    });
  });
});
