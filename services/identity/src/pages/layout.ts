const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => escapes[c]!);
}

const styles = `
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f1f5f9;
font-family:"Hiragino Sans","Hiragino Kaku Gothic ProN","Noto Sans JP",Meiryo,system-ui,sans-serif;color:#1e293b}
main{width:100%;max-width:400px;margin:24px 16px;background:#fff;border-radius:12px;
box-shadow:0 1px 3px rgba(15,23,42,.08),0 8px 24px rgba(15,23,42,.06);padding:32px 28px}
.brand{display:flex;align-items:baseline;gap:8px;margin-bottom:24px}
.brand .mark{width:32px;height:32px;border-radius:8px;background:#0f766e;color:#fff;display:flex;
align-items:center;justify-content:center;font-weight:700;font-size:16px;align-self:center}
.brand .name{font-size:22px;font-weight:700;color:#0f766e}
.brand .sub{font-size:13px;color:#64748b}
h1{font-size:18px;margin:0 0 16px}
p{font-size:14px;line-height:1.7;margin:0 0 16px}
label{display:block;font-size:13px;font-weight:600;margin:16px 0 6px}
input[type=text],input[type=email],input[type=password]{width:100%;padding:10px 12px;font-size:15px;
border:1px solid #cbd5e1;border-radius:8px;background:#fff}
input:focus{outline:2px solid #14b8a6;outline-offset:0;border-color:#14b8a6}
button{width:100%;margin-top:24px;padding:11px 12px;font-size:15px;font-weight:600;color:#fff;background:#0f766e;
border:0;border-radius:8px;cursor:pointer}
button:hover{background:#115e59}
.error{background:#fef2f2;color:#b91c1c;border:1px solid #fecaca;border-radius:8px;padding:10px 12px;font-size:13px;margin-bottom:8px}
.notice{background:#f0fdfa;color:#115e59;border:1px solid #99f6e4;border-radius:8px;padding:10px 12px;font-size:13px;margin-bottom:8px}
.links{margin-top:20px;font-size:13px;text-align:center}
a{color:#0f766e}
footer{margin-top:28px;font-size:11px;color:#64748b;text-align:center}
`;

/** Every page the provider shows: the same frame, in Japanese, with no external assets. */
export function page(title: string, body: string, options: { head?: string } = {}): string {
  return `<!doctype html>
<html lang="ja">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)} | 連携 Renkei</title>
<style>${styles}</style>
${options.head ?? ''}
</head>
<body>
<main>
<div class="brand"><span class="mark">連</span><span class="name">連携</span><span class="sub">Renkei</span></div>
${body}
<footer>地域医療連携のための CRM</footer>
</main>
</body>
</html>`;
}

export function errorBox(message: string | undefined): string {
  return message ? `<div class="error" role="alert">${escapeHtml(message)}</div>` : '';
}
