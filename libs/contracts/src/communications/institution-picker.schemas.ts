import { z } from 'zod';
import { Id } from '../core/zod-helpers.ts';

/** An institution the caller logged communications for lately (the form's 最近の医療機関). */
export const RecentCommunicationInstitution = z.object({
  id: Id,
  name: z.string(),
  address: z.string(),
  /** The acted date of the caller's latest record for it. */
  last_acted_date: z.iso.date(),
});
export type RecentCommunicationInstitution = z.infer<typeof RecentCommunicationInstitution>;

export const RecentCommunicationInstitutions = z.object({ data: z.array(RecentCommunicationInstitution) });

const latitudeMessage = '緯度は20〜46の範囲で指定してください';
const longitudeMessage = '経度は122〜154の範囲で指定してください';
const radiusMessage = '検索範囲は100〜20000メートルの整数で指定してください';

/** Where the caller stands (the phone's position), within Japan's extent as the master's coordinates are. */
export const NearbyInstitutionsQuery = z.object({
  latitude: z.coerce.number({ error: latitudeMessage }).min(20, latitudeMessage).max(46, latitudeMessage),
  longitude: z.coerce.number({ error: longitudeMessage }).min(122, longitudeMessage).max(154, longitudeMessage),
  radius_m: z.coerce
    .number({ error: radiusMessage })
    .int(radiusMessage)
    .min(100, radiusMessage)
    .max(20000, radiusMessage)
    .default(3000),
});
export type NearbyInstitutionsQuery = z.infer<typeof NearbyInstitutionsQuery>;

export const NearbyInstitution = z.object({
  id: Id,
  name: z.string(),
  address: z.string(),
  /** Great-circle distance from the asked position, whole metres. */
  distance_m: z.number().int(),
  /** The tenant's last visit (visit or new_visit) there, if any. */
  last_visit_date: z.iso.date().nullable(),
});
export type NearbyInstitution = z.infer<typeof NearbyInstitution>;

export const NearbyInstitutions = z.object({ data: z.array(NearbyInstitution) });
