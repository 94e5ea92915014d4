import { createHash } from 'node:crypto';
import { escapeHtml, page } from './layout.ts';

const logoutScript = "document.getElementById('op.logoutForm').submit()";

/** The security policy of the logout page: its one inline script is allowed by hash, nothing else. */
export const logoutPageCsp = `default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-${createHash('sha256').update(logoutScript).digest('base64')}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`;

/**
 * The policy every page the provider renders itself starts from (the gateway's for /oidc). Set before
 * the provider runs, so the pages it writes with an inline script add that script's hash to it: the
 * auto-submitted sign-out form it renders when the session has no account — a deleted account's
 * session is removed at once — otherwise inherited the gateway's `script-src 'self'`, its script was
 * refused, and the browser stayed on a blank page instead of reaching the sign-in (issue 15).
 */
export const providerPagesCsp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'self'",
].join('; ');

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
