import sanitizeHtml from 'sanitize-html';

/**
 * What the editor may produce and mail clients keep (Outlook's Word engine, Gmail, Apple Mail):
 * text structure, lists, links, images by URL, simple tables, and inline styles limited to
 * colour, alignment and weight. Scripts, forms, iframes, event handlers and `javascript:` URLs go.
 */
const options: sanitizeHtml.IOptions = {
  allowedTags: [
    'p',
    'br',
    'h1',
    'h2',
    'h3',
    'h4',
    'strong',
    'b',
    'em',
    'i',
    'u',
    's',
    'span',
    'blockquote',
    'hr',
    'ul',
    'ol',
    'li',
    'a',
    'img',
    'table',
    'thead',
    'tbody',
    'tr',
    'th',
    'td',
    'div',
  ],
  allowedAttributes: {
    a: ['href', 'title', 'target'],
    img: ['src', 'alt', 'width', 'height'],
    td: ['colspan', 'rowspan'],
    th: ['colspan', 'rowspan'],
    '*': ['style'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesByTag: { img: ['http', 'https'] },
  allowProtocolRelative: false,
  allowedStyles: {
    '*': {
      color: [/^#[0-9a-f]{3,6}$/i, /^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/],
      'background-color': [/^#[0-9a-f]{3,6}$/i, /^rgb\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*\)$/],
      'text-align': [/^(left|right|center|justify)$/],
      'font-weight': [/^(bold|normal|[1-9]00)$/],
      'text-decoration': [/^(underline|line-through|none)$/],
    },
    // An image fits the reader's screen (phones) and keeps its proportions.
    img: {
      'max-width': [/^100%$/],
      height: [/^auto$/],
      border: [/^0$/],
    },
  },
};

/** The campaign's HTML as it is kept: only what survives in mail clients and cannot run anything. */
export function sanitizeEmailHtml(html: string): string {
  return sanitizeHtml(html, options);
}
