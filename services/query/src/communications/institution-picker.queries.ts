import { sql, type Kysely } from 'kysely';
import type { NearbyInstitution, NearbyInstitutionsQuery, RecentCommunicationInstitution } from '@renkei/contracts';
import type { ReadModels } from '@renkei/read-models';

/** How many of the caller's latest records the recent list looks through, and how many institutions it gives. */
const recentRecords = 300;
const recentInstitutions = 10;
const nearbyLimit = 20;

/** Mean Earth radius (IUGG), metres: the haversine below is within ~0.5% of the ellipsoid in Japan. */
const earthRadiusM = 6371008.8;
const metresPerDegree = (earthRadiusM * Math.PI) / 180;

/**
 * The institutions the caller most recently logged communications for, newest first. The caller's
 * latest records come from the (tenant, user, acted_date, created_at, id) index and stop after a few
 * hundred, so the cost does not grow with their history; grouping those by institution gives the
 * list. Institutions the master no longer has drop out (inner join).
 */
export async function recentCommunicationInstitutions(
  db: Kysely<ReadModels>,
  tenantId: string,
  userId: string,
): Promise<RecentCommunicationInstitution[]> {
  const { rows } = await sql<RecentCommunicationInstitution>`
    SELECT i.id, i.name, i.address, to_char(r.last_acted_date, 'YYYY-MM-DD') AS last_acted_date
    FROM (
      SELECT latest.medical_institution_id, max(latest.acted_date) AS last_acted_date,
             max(latest.created_at) AS last_created_at
      FROM (
        SELECT c.medical_institution_id, c.acted_date, c.created_at
        FROM rm.communications c
        WHERE c.tenant_id = ${tenantId} AND c.user_id = ${userId}
        ORDER BY c.acted_date DESC, c.created_at DESC, c.id DESC
        LIMIT ${recentRecords}
      ) latest
      GROUP BY latest.medical_institution_id
      ORDER BY max(latest.acted_date) DESC, max(latest.created_at) DESC, latest.medical_institution_id
      LIMIT ${recentInstitutions}
    ) r
    JOIN ref.medical_institutions i ON i.id = r.medical_institution_id
    ORDER BY r.last_acted_date DESC, r.last_created_at DESC, r.medical_institution_id`.execute(db);
  return rows;
}

/**
 * The institutions within `radius_m` of a point that are not closed, nearest first, with the tenant's
 * last visit. The master is shared (no tenant); only the visit dates are the tenant's. A bounding box
 * on the (latitude, longitude) index keeps the rows read to the few around the point; the exact
 * distance (haversine) is computed for those only. Plain SQL, so PGlite (no PostGIS, no
 * earthdistance) answers it the same.
 */
export async function nearbyInstitutions(
  db: Kysely<ReadModels>,
  tenantId: string,
  query: NearbyInstitutionsQuery,
): Promise<NearbyInstitution[]> {
  const { latitude, longitude, radius_m: radius } = query;
  // A little wider than the circle, so rounding never drops a row at its edge. Longitude degrees
  // shrink towards the pole: take the box's polar edge so the box always holds the circle.
  const latDelta = (radius / metresPerDegree) * 1.01;
  const polarEdge = Math.min(89, Math.abs(latitude) + latDelta);
  const lngDelta = latDelta / Math.cos((polarEdge * Math.PI) / 180);
  const lat = sql`${latitude}::double precision`;
  const lng = sql`${longitude}::double precision`;
  const { rows } = await sql<NearbyInstitution>`
    SELECT n.id, n.name, n.address, round(n.distance)::int AS distance_m,
           to_char(v.last_visit_date, 'YYYY-MM-DD') AS last_visit_date
    FROM (
      SELECT b.id, b.name, b.address, b.distance
      FROM (
        SELECT m.id, m.name, m.address,
               2 * ${earthRadiusM}::double precision * asin(least(1, sqrt(
                 power(sin(radians(m.latitude - ${lat}) / 2), 2)
                 + cos(radians(${lat})) * cos(radians(m.latitude))
                   * power(sin(radians(m.longitude - ${lng}) / 2), 2)
               ))) AS distance
        FROM ref.medical_institutions m
        WHERE m.latitude BETWEEN ${latitude - latDelta}::double precision AND ${latitude + latDelta}::double precision
          AND m.longitude BETWEEN ${longitude - lngDelta}::double precision AND ${longitude + lngDelta}::double precision
          AND m.running_status <> 'closed'
      ) b
      WHERE b.distance <= ${radius}::double precision
      ORDER BY b.distance, b.id
      LIMIT ${nearbyLimit}
    ) n
    LEFT JOIN rm.mi_last_visits v ON v.tenant_id = ${tenantId} AND v.medical_institution_id = n.id
    ORDER BY n.distance, n.id`.execute(db);
  return rows;
}
