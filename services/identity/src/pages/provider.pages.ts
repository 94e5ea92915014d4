import { createHash } from 'node:crypto';
import { escapeHtml, page } from './layout.ts';

const logoutScript = "document.getElementById('op.logoutForm').submit()";

/** The security policy of the logout page: its one inline script is allowed by hash, nothing else. */
export const logoutPageCsp = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${createHash('sha256').update(logoutScript).digest('base64')}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

export function errorPage(options: { appUrl: string; detail?: string | undefined }): string {
  return page(
    'エラー',
    `<h1>エラーが発生しました</h1>
<p>ログイン処理を続けられませんでした。お手数ですが、もう一度最初からお試しください。</p>
${options.detail ? `<p style="font-size:12px;color:#64748b">${escapeHtml(options.detail)}</p>` : ''}
<div class="links"><a href="${escapeHtml(options.appUrl)}">トップページへ</a></div>`,
  );
}

/** The provider's sign-out confirmation, submitted at once: the user already asked to sign out in the app. */
export function logoutPage(form: string): string {
  return page(
    'ログアウト中',
    `<h1>ログアウト中です</h1>
${form}
<input type="hidden" form="op.logoutForm" name="logout" value="yes">
<noscript><button type="submit" form="op.logoutForm">ログアウト</button></noscript>
<script>${logoutScript}</script>`,
  );
}

export function loggedOutPage(options: { appUrl: string }): string {
  return page(
    'ログアウトしました',
    `<h1>ログアウトしました</h1>
<div class="links"><a href="${escapeHtml(options.appUrl)}">ログイン画面へ</a></div>`,
  );
}
