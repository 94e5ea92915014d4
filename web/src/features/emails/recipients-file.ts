import type { Email } from '@renkei/contracts';

/*
 * The API keeps a draft's recipients (resolved when it is saved) but not the name of the file they came from
 * (an update without a file keeps them). So that a reloaded draft does not read as "no file", the page says a
 * file is saved whenever the counts show one, and names it when this browser saved it.
 */

const prefix = 'renkei:email-recipients-file:';

function storage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    // Storage disabled (private mode, policy): the page still says a file is saved, without its name.
    return null;
  }
}

export function rememberRecipientsFileName(emailId: string, name: string): void {
  try {
    storage()?.setItem(prefix + emailId, name);
  } catch {
    // Quota exceeded: the name is only a help; the recipients themselves are on the server.
  }
}

export function recalledRecipientsFileName(emailId: string): string | null {
  try {
    return storage()?.getItem(prefix + emailId) ?? null;
  } catch {
    return null;
  }
}

/**
 * Whether the saved draft holds recipients from a file: rows refused as addresses come only from a file, and
 * chosen doctors give at most one address each. (A file whose rows all repeat chosen doctors' addresses
 * cannot be told apart; it adds no recipient either.)
 */
export function hasFileRecipients(
  email: Pick<Email, 'destination_count' | 'invalid_destination_count' | 'doctor_ids'>,
): boolean {
  return email.invalid_destination_count > 0 || email.destination_count > email.doctor_ids.length;
}
