import type { UploadedFile } from '@renkei/contracts';

/** The largest file the server takes (docs/decisions.md, Attachments): checked here first to save the upload. */
export const maxAttachmentBytes = 10 * 1024 * 1024;
/** Files a communication may have (the contract's limit). */
export const maxAttachments = 10;

/**
 * Where a file link answered by the API opens: it is a path on the API's origin (`/files/…`), which
 * is the page's own origin unless the API is configured elsewhere.
 */
export function fileHref(apiBaseUrl: string, url: string): string {
  if (/^https?:\/\//i.test(url)) return url;
  if (/^https?:\/\//i.test(apiBaseUrl)) return new URL(url, apiBaseUrl).toString();
  return url;
}

/**
 * Whether to try a thumbnail. Only a hint from the name: the server decides from the bytes what it
 * shows inline, and a thumbnail that does not load falls back to the file name.
 */
export const looksLikeImage = (file: Pick<UploadedFile, 'filename'>): boolean =>
  /\.(jpe?g|png|gif|webp)$/i.test(file.filename);
