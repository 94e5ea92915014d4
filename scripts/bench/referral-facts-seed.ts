import { randomUUID } from 'node:crypto';

type Query = (text: string, values?: unknown[]) => Promise<unknown>;

/**
 * Referral facts written straight into the read models' tables, as the analysis and reports benches
 * seed them: `referrals` referrals over three 年度 from 2023-04-01, skewed over the first
 * `institutions` rows of `bench_institutions` (n, id; a few send most), departments drawn from four
 * own departments (and none), stays after 40 % of them and reverse referrals after 40 %. Inserted
 * `step` referrals per statement.
 */
export async function seedReferralFacts(
  q: Query,
  options: { tenantId: string; departments: string[]; institutions: number; referrals: number; step: number },
): Promise<void> {
  const { tenantId, departments, step } = options;
  const REFERRALS = options.referrals;
  const INSTITUTIONS = options.institutions;
  for (let start = 0; start < REFERRALS; start += step) {
    const end = Math.min(REFERRALS, start + step) - 1;
    await q(
      `INSERT INTO rm.referrals (tenant_id, identity, id, referral_date, patient_id, patient_key, medical_institution_id,
         institution_code, institution_name, from_department, from_doctor, to_department, own_department_id, to_doctor,
         purpose, first_visit, source_id, import_id, content)
       SELECT $1, 'r' || s.g, gen_random_uuid(), DATE '2023-04-01' + (random() * 1095)::int, 'p' || s.g, 'p' || s.g,
              i.id, NULL, NULL, (ARRAY['内科','外科','整形外科','小児科', NULL])[1 + (random() * 4)::int], NULL, NULL,
              (ARRAY[$2, $3, $4, $5, NULL]::uuid[])[1 + (random() * 4)::int], NULL, NULL,
              (ARRAY[true, false, NULL])[1 + (random() * 2)::int], NULL, $6, ''
         -- One draw per referral (in the join's condition it would be drawn per pair).
         FROM (SELECT g, floor(${INSTITUTIONS} * random() ^ 3)::int AS k FROM generate_series($7::int, $8::int) g) s
         JOIN bench_institutions i ON i.n = s.k`,
      [tenantId, ...departments, randomUUID(), start, end],
    );
  }
  await q(
    `INSERT INTO rm.hospital_admissions (tenant_id, identity, id, patient_key, admission_date, kcode, dpc_code, scores, referral_id, import_id, content)
     SELECT tenant_id, 'a' || identity, gen_random_uuid(), patient_key, referral_date + (random() * 30)::int,
            CASE WHEN random() < 0.4 THEN (ARRAY['K6335','K7181','K0461','K5461'])[1 + (random() * 3)::int] END,
            (ARRAY['04','05','06','07','11'])[1 + (random() * 4)::int] || '0080xx99x0xx', '{}', id, $2, ''
       FROM rm.referrals WHERE tenant_id = $1 AND random() < 0.4`,
    [tenantId, randomUUID()],
  );
  await q(
    `INSERT INTO rm.reverse_referrals (tenant_id, identity, id, reverse_referral_date, patient_id, patient_key,
       medical_institution_id, own_department_id, import_id, content)
     SELECT tenant_id, 'v' || identity, gen_random_uuid(), referral_date + (random() * 60)::int, patient_id, patient_key,
            medical_institution_id, own_department_id, $2, ''
       FROM rm.referrals WHERE tenant_id = $1 AND random() < 0.4`,
    [tenantId, randomUUID()],
  );
}
