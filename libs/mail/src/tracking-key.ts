import { signingKey } from '@renkei/keys';

/**
 * The key of tracking and unsubscribe tokens: `secret` (RENKEI_EMAIL_TRACKING_SECRET) when set (every
 * deployment that signs or checks tokens must share it), else a key made once and kept in
 * `<dataDir>/email-tracking.key` (the embedded install, where one process does both).
 */
export function emailTrackingKey(dataDir: string, secret: string | undefined): Buffer {
  return signingKey({ secret, dataDir, file: 'email-tracking.key' });
}
