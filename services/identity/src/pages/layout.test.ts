import { describe, expect, it } from 'vitest';
import { signInPage, wrongCredentialsMessage } from './sign-in.page.ts';

describe('sign-in page', () => {
  it('escapes what the user typed and shows the Japanese error', () => {
    const html = signInPage({
      action: '/oidc/interaction/abc/login',
      forgotUrl: '/oidc/password/forgot',
      login: '"><script>alert(1)</script>',
      error: wrongCredentialsMessage,
    });
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&quot;&gt;&lt;script&gt;');
    expect(html).toContain('メールアドレス（ログインID）またはパスワードが正しくありません。');
    expect(html).toContain('lang="ja"');
    expect(html).not.toMatch(/https?:\/\/(?!localhost)/);
  });
});
