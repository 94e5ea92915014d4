import type { Email } from '@renkei/contracts';
import { signFileUrl, type FileStorage } from '@renkei/file-storage';
import { deterministicId } from '../shared/deterministic-id.ts';
import { emailAttachmentOwner, type AttachmentFact, type EmailState } from './email.decider.ts';

/** The named uploaded file as the decider checks it (null: not a file of this tenant). */
export async function attachmentFact(
  storage: FileStorage,
  tenantId: string,
  attachmentId: string | null,
): Promise<AttachmentFact | null> {
  if (!attachmentId) return null;
  const [file] = await storage.find(tenantId, [attachmentId]);
  return file ? { owner: file.owner, size: file.size } : null;
}

/**
 * After a save or a delete: the draft's attachment becomes the email's own (a file it had before is
 * released and goes a day later, as does the file of a deleted draft). The worker's uploaded-files
 * reactor does the same from the events, so a crash between the append and this call loses nothing.
 */
export async function linkEmailAttachment(
  storage: FileStorage,
  tenantId: string,
  emailId: string,
  state: EmailState,
  revision: number,
): Promise<void> {
  const id = state.status !== 'deleted' ? state.draft?.attachment_id : null;
  await storage.setOwnerFiles(tenantId, emailAttachmentOwner(emailId), id ? [id] : [], revision);
}

/** What an email answers of its attachment: read from the file storage (the command side has no read model). */
export async function attachmentView(
  storage: FileStorage,
  key: () => Buffer,
  tenantId: string,
  attachmentId: string | null,
): Promise<Pick<Email, 'attachment_name' | 'attachment_size' | 'attachment_url'>> {
  const [file] = attachmentId ? await storage.find(tenantId, [attachmentId]) : [];
  return file
    ? { attachment_name: file.filename, attachment_size: file.size, attachment_url: signFileUrl(key(), file) }
    : { attachment_name: null, attachment_size: null, attachment_url: null };
}

/**
 * A copied email gets its own copy of the source's attachment (the same name and bytes under a new
 * id): a file belongs to one record, so deleting or editing one draft never takes the other's file.
 * The id derives from the new email, so a retried copy finds the file the first attempt stored. A
 * source whose file is gone is copied without one.
 */
export async function copyAttachment(
  storage: FileStorage,
  tenantId: string,
  accountId: string,
  sourceAttachmentId: string | null,
  emailId: string,
): Promise<string | null> {
  if (!sourceAttachmentId) return null;
  const id = deterministicId(emailId, 'attachment', sourceAttachmentId);
  const [source, earlier] = await Promise.all([
    storage.find(tenantId, [sourceAttachmentId]),
    storage.find(tenantId, [id]),
  ]);
  if (earlier[0]) return id;
  const file = source[0];
  if (!file) return null;
  // Read whole before `put` (at most the 3 MiB attachment limit): `put` writes in a transaction, and a
  // read streaming through the pool meanwhile would wait for the connection that transaction holds on
  // the embedded PGlite's single connection, and hang the whole process.
  const chunks: Uint8Array[] = [];
  for await (const chunk of storage.read(file)) chunks.push(chunk);
  await storage.put(
    { id, tenantId, filename: file.filename, contentType: file.contentType, createdBy: accountId },
    chunks,
  );
  return id;
}
