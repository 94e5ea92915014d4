import { maxPasswordLength } from '@renkei/contracts';
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

const passwordRules = `パスワードは8文字以上、${maxPasswordLength}文字以内で入力してください。英字・数字・記号を組み合わせ、他のサービスと同じパスワードは避けてください。`;

export function confirmationPage(options: { action: string; token: string; error?: string }): string {
  return page(
    'アカウント登録',
    `<h1>アカウント登録</h1>
<p>連携（Renkei）で使うパスワードを設定して、登録を完了してください。</p>
<p>${escapeHtml(passwordRules)}</p>
${errorBox(options.error)}
<form method="post" action="${escapeHtml(options.action)}">
<input type="hidden" name="token" value="${escapeHtml(options.token)}">
<label for="password">パスワード</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="${maxPasswordLength}" required autofocus>
<label for="password_confirmation">パスワード（確認）</label>
<input id="password_confirmation" name="password_confirmation" type="password" autocomplete="new-password" minlength="8" maxlength="${maxPasswordLength}" required>
<button type="submit">登録する</button>
</form>`,
  );
}

/** After sign-up when no sign-in ticket could be given (a form posted from elsewhere): sign in by hand. */
export function confirmationDonePage(options: { appUrl: string }): string {
  return page(
    '登録が完了しました',
    `<h1>登録が完了しました</h1>
<div class="notice">設定したパスワードでログインできます。</div>
<div class="links"><a href="${escapeHtml(options.appUrl)}">ログインして始める</a></div>`,
  );
}

export function invalidConfirmationLinkPage(options: { ttlDays: number; appUrl: string }): string {
  return page(
    'リンクが無効です',
    `<h1>リンクが無効です</h1>
<div class="error" role="alert">このアカウント登録用のリンクは、使用済みか有効期限（送信から${options.ttlDays}日間）が切れています。</div>
<p>登録がまだお済みでない場合は、アカウントの管理者（オーナー）に招待メールの再送を依頼してください。登録がお済みの場合は、ログイン画面からログインしてください。</p>
<div class="links"><a href="${escapeHtml(options.appUrl)}">ログイン画面へ</a></div>`,
  );
}
