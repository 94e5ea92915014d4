import { errorBox, escapeHtml, page } from './layout.ts';

export const wrongCredentialsMessage = 'メールアドレス（ログインID）またはパスワードが正しくありません。';

export const lockedOutMessage =
  'ログイン試行回数が上限に達しました。しばらくしてから再度お試しいただくか、パスワードを再設定してください。';

export function signInPage(options: { action: string; forgotUrl: string; login?: string; error?: string }): string {
  return page(
    'ログイン',
    `<h1>ログイン</h1>
${errorBox(options.error)}
<form method="post" action="${escapeHtml(options.action)}" autocomplete="on">
<label for="login">メールアドレスまたはログインID</label>
<input id="login" name="login" type="text" autocomplete="username" required autofocus value="${escapeHtml(options.login ?? '')}">
<label for="password">パスワード</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">ログイン</button>
</form>
<div class="links"><a href="${escapeHtml(options.forgotUrl)}">パスワードをお忘れの方</a></div>`,
  );
}
