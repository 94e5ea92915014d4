import { HttpError } from '@renkei/contracts';
import { filePathPrefix, isImage, signFileUrl, type FileStorage } from '@renkei/file-storage';

/**
 * The expiry of a mail image's link: 2100-01-01. A mail is read months or years after it went out,
 * so its images need a link that does not expire (the API's file links last 30 minutes). Fixed, so
 * saving a draft again gives the same HTML.
 */
const mailImageExpires = 4_102_444_800;

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const decodeAttribute = (s: string) => s.replace(/&amp;/g, '&').replace(/&quot;/g, '"');
const encodeAttribute = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

/**
 * Uploaded images of a mail's (sanitised) HTML: an `<img>` whose `src` is a file link of Renkei (the
 * `/files/<id>?…` link `POST /uploaded_files` answers, relative or on the public origin) gets a link
 * to the same file that lasts until 2100, absolute on the public origin so the recipient's mail
 * client can fetch it, and the file is kept for good (a sent mail's image is never removed). A link
 * to a file of another tenant, to an unknown file or to one that is not an image is a 422 naming
 * the body. Other images (https addresses elsewhere) stay as they are.
 */
export async function publishMailImages(
  html: string,
  deps: { tenantId: string; storage: FileStorage; fileUrlKey: () => Buffer; publicOrigin: string },
): Promise<string> {
  const origin = deps.publicOrigin.replace(/\/$/, '');
  const found: { whole: string; before: string; after: string; id: string | null }[] = [];
  const pattern = /(<img\b[^>]*?\bsrc=")([^"]*)(")/gi;
  for (const match of html.matchAll(pattern)) {
    const src = decodeAttribute(match[2]!);
    let url: URL;
    try {
      url = new URL(src, `${origin}/`);
    } catch {
      continue;
    }
    const ours = url.origin === new URL(origin).origin && url.pathname.startsWith(filePathPrefix);
    if (!ours) continue;
    const id = url.pathname.slice(filePathPrefix.length);
    found.push({ whole: match[0], before: match[1]!, after: match[3]!, id: uuid.test(id) ? id.toLowerCase() : null });
  }
  if (found.length === 0) return html;
  const ids = [...new Set(found.flatMap((f) => (f.id ? [f.id] : [])))];
  const files = new Map((await deps.storage.find(deps.tenantId, ids)).map((f) => [f.id, f]));
  if (found.some((f) => !f.id || !files.get(f.id) || !isImage(files.get(f.id)!.contentType)))
    throw new HttpError(422, undefined, {
      errors: [
        {
          field: 'stringified.main_content',
          message: '本文の画像が見つからないか、画像ではありません。画像を入れ直してください。',
        },
      ],
    });
  // Kept for good: each image is its own owner (a copy of the email shares it, and neither's delete may free it).
  for (const id of ids) await deps.storage.setOwnerFiles(deps.tenantId, `email_image:${id}`, [id], 1);
  const key = deps.fileUrlKey();
  const signed = (id: string) =>
    `${origin}${signFileUrl(key, { tenantId: deps.tenantId, id }, new Date(0), mailImageExpires)}`;
  let out = html;
  for (const f of found) out = out.replace(f.whole, `${f.before}${encodeAttribute(signed(f.id!))}${f.after}`);
  return out;
}
