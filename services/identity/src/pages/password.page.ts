import { errorBox, escapeHtml, page } from './layout.ts';

export function forgotPasswordPage(options: {
  action: string;
  appUrl: string;
  login?: string;
  error?: string;
}): string {
  return page(
    'パスワードの再設定',
    `<h1>パスワードの再設定</h1>
<p>ご登録のメールアドレスを入力してください。パスワード再設定用のリンクをお送りします。</p>
${errorBox(options.error)}
<form method="post" action="${escapeHtml(options.action)}">
<label for="email">メールアドレス</label>
<input id="email" name="email" type="email" autocomplete="email" required autofocus value="${escapeHtml(options.login ?? '')}">
<button type="submit">再設定メールを送信</button>
</form>
<div class="links"><a href="${escapeHtml(options.appUrl)}">ログイン画面に戻る</a></div>`,
  );
}

export function forgotPasswordSentPage(options: { appUrl: string }): string {
  return page(
    'メールを送信しました',
    `<h1>メールを送信しました</h1>
<div class="notice">入力されたメールアドレスが登録されている場合、パスワード再設定用のリンクをお送りしました。</div>
<p>メールに記載されたリンクから1時間以内に新しいパスワードを設定してください。メールが届かない場合は、迷惑メールフォルダをご確認いただくか、管理者にお問い合わせください。</p>
<div class="links"><a href="${escapeHtml(options.appUrl)}">ログイン画面へ</a></div>`,
  );
}

export function resetPasswordPage(options: { action: string; token: string; error?: string }): string {
  return page(
    '新しいパスワードの設定',
    `<h1>新しいパスワードの設定</h1>
${errorBox(options.error)}
<form method="post" action="${escapeHtml(options.action)}">
<input type="hidden" name="token" value="${escapeHtml(options.token)}">
<label for="password">新しいパスワード（8文字以上）</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required autofocus>
<label for="password_confirmation">新しいパスワード（確認）</label>
<input id="password_confirmation" name="password_confirmation" type="password" autocomplete="new-password" minlength="8" required>
<button type="submit">パスワードを設定</button>
</form>`,
  );
}

export function resetPasswordDonePage(options: { appUrl: string }): string {
  return page(
    'パスワードを設定しました',
    `<h1>パスワードを設定しました</h1>
<div class="notice">新しいパスワードでログインできます。</div>
<div class="links"><a href="${escapeHtml(options.appUrl)}">ログイン画面へ</a></div>`,
  );
}

export function invalidResetLinkPage(options: { forgotUrl: string }): string {
  return page(
    'リンクが無効です',
    `<h1>リンクが無効です</h1>
<div class="error" role="alert">パスワード再設定用のリンクが無効か、有効期限（1時間）が切れています。</div>
<div class="links"><a href="${escapeHtml(options.forgotUrl)}">もう一度再設定メールを送る</a></div>`,
  );
}
