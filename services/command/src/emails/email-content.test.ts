import { describe, expect, it } from 'vitest';
import { sanitizeEmailHtml } from './email-content.ts';

describe('sanitizeEmailHtml', () => {
  it('drops scripts, handlers and javascript: links, keeps text, links and images', () => {
    const html =
      '<p style="color:#c00;position:fixed" onclick="x()">ご案内<script>alert(1)</script></p>' +
      '<a href="javascript:alert(1)">悪い</a><a href="https://example.jp/a">詳細</a><img src="https://example.jp/i.png" alt="図">' +
      '<iframe src="https://evil.example"></iframe>';
    expect(sanitizeEmailHtml(html)).toBe(
      '<p style="color:#c00">ご案内</p><a>悪い</a><a href="https://example.jp/a">詳細</a><img src="https://example.jp/i.png" alt="図" />',
    );
  });
});

describe('images of the editor', () => {
  it('keep their address, alternative text and fit-to-screen style; data: and other styles go', () => {
    const html =
      '<img src="https://example.jp/new-doctor.jpg" alt="新任医師" style="max-width:100%;height:auto;border:0;position:absolute">' +
      '<img src="data:image/png;base64,AAAA" alt="埋め込み">';
    expect(sanitizeEmailHtml(html)).toBe(
      '<img src="https://example.jp/new-doctor.jpg" alt="新任医師" style="max-width:100%;height:auto;border:0" /><img alt="埋め込み" />',
    );
  });
});
