import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { ProjectionTables } from '@renkei/projections';
import { noteLeft, type LeftRow } from './referrals.withdrawals.ts';
import { noDepartment, type Patient, type RollupKey } from './referrals.keys.ts';
import type { RecordedEvent } from '@renkei/event-store';
import {
  defaultReferralAdmissionPeriodDays,
  type ReferralAdmissionPeriodChanged,
  type ReferralStaysRelinkRequested,
  type SegmentationSettingReplaced,
} from '@renkei/domain';

type T = ProjectionTables<'referral_settings' | 'referrals' | 'reverse_referrals' | 'hospital_admissions'>;
type Recompute = (trx: Transaction<unknown>, t: never, affected: Patient[], keys: RollupKey[]) => Promise<void>;
/** Re-links the patients' stays and notes the months that leaves to sum against `changeId`. */
type RelinkDeferred = (trx: Transaction<unknown>, changeId: string, affected: Patient[]) => Promise<void>;

type SettingsEvent =
  | { type: 'ReferralAdmissionPeriodChanged'; data: ReferralAdmissionPeriodChanged }
  | { type: 'ReferralStaysRelinkRequested'; data: ReferralStaysRelinkRequested }
  | { type: 'SegmentationSettingReplaced'; data: SegmentationSettingReplaced }
  | { type: 'ReferralEntryDeleted'; data: { referral_id: string } }
  | { type: 'ReverseReferralEntryDeleted'; data: { reverse_referral_id: string } };

/** The admission period (days) of the tenant named by `tenantId` (an SQL expression), else the default. */
export const admissionPeriodOf = (t: Pick<T, 'referral_settings'>, tenantId: RawBuilder<unknown>) =>
  sql`coalesce((SELECT s.admission_period_days FROM ${sql.table(t.referral_settings)} s WHERE s.tenant_id = ${tenantId}), ${defaultReferralAdmissionPeriodDays})::int`;

/**
 * The referrals projection's share of owners' settings and hand-entry withdrawals, folded per batch:
 * - the admission period and the segmentation setting, one row per tenant;
 * - the re-link slices a period change is followed by: the stays of the slice's patients follow the
 *   tenant's period as stored (not the period of the change that asked for the slice: a later change
 *   makes its own slices, and a slice of an earlier one then agrees with it);
 * - hand entries withdrawn: their rows go, and their patients' stays and rollup months are recomputed.
 * `recompute` is the projection's own (re-link of patients, then the rollups of their referrals).
 */
export class ReferralSettingsBatch {
  private readonly periods = new Map<string, { days: number; version: number; at: string }>();
  private readonly segmentations = new Map<
    string,
    { setting: SegmentationSettingReplaced; version: number; at: string }
  >();
  private readonly relinks: { tenant_id: string; change_id: string; bucket: number; buckets: number }[] = [];
  private readonly deleted: { tenant_id: string; identity: string; kind: 'referral' | 'reverse' }[] = [];

  constructor(
    private readonly recompute: Recompute,
    private readonly relinkDeferred: RelinkDeferred,
  ) {}

  add(event: SettingsEvent, recorded: RecordedEvent): void {
    const tenantId = recorded.metadata.tenant_id;
    const at = recorded.created_at.toISOString();
    switch (event.type) {
      case 'ReferralAdmissionPeriodChanged':
        this.periods.set(tenantId, { days: event.data.days, version: recorded.revision, at });
        break;
      case 'ReferralStaysRelinkRequested':
        this.relinks.push({
          tenant_id: tenantId,
          change_id: event.data.change_id,
          bucket: event.data.bucket,
          buckets: event.data.buckets,
        });
        break;
      case 'SegmentationSettingReplaced':
        this.segmentations.set(tenantId, { setting: event.data, version: recorded.revision, at });
        break;
      case 'ReferralEntryDeleted':
        this.deleted.push({ tenant_id: tenantId, identity: `manual:${event.data.referral_id}`, kind: 'referral' });
        break;
      case 'ReverseReferralEntryDeleted':
        this.deleted.push({
          tenant_id: tenantId,
          identity: `manual:${event.data.reverse_referral_id}`,
          kind: 'reverse',
        });
        break;
    }
  }

  /** Before the batch's facts: they link with the period their tenant has at the end of the batch. */
  async applySettings(trx: Transaction<unknown>, t: Pick<T, 'referral_settings'>): Promise<void> {
    if (this.periods.size > 0) {
      const rows = [...this.periods].map(([tenant_id, p]) => ({ tenant_id, ...p }));
      await sql`
        INSERT INTO ${sql.table(t.referral_settings)} AS s (tenant_id, admission_period_days, period_version, period_updated_at)
        SELECT tenant_id, days, version, at FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS r(tenant_id uuid, days int, version int, at timestamptz)
        ON CONFLICT (tenant_id) DO UPDATE SET
          admission_period_days = excluded.admission_period_days, period_version = excluded.period_version,
          period_updated_at = excluded.period_updated_at`.execute(trx);
    }
    if (this.segmentations.size > 0) {
      const rows = [...this.segmentations].map(([tenant_id, s]) => ({
        tenant_id,
        rest: s.setting.rest_segment_label,
        excluded: s.setting.excluded_own_department_ids,
        segments: s.setting.segments,
        version: s.version,
        at: s.at,
      }));
      await sql`
        INSERT INTO ${sql.table(t.referral_settings)} AS s
          (tenant_id, rest_segment_label, excluded_own_department_ids, segments, segmentation_version, segmentation_updated_at)
        SELECT tenant_id, rest, excluded, segments, version, at FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb)
          AS r(tenant_id uuid, rest text, excluded jsonb, segments jsonb, version int, at timestamptz)
        ON CONFLICT (tenant_id) DO UPDATE SET
          rest_segment_label = excluded.rest_segment_label, excluded_own_department_ids = excluded.excluded_own_department_ids,
          segments = excluded.segments, segmentation_version = excluded.segmentation_version,
          segmentation_updated_at = excluded.segmentation_updated_at`.execute(trx);
    }
  }

  /** After the batch's facts: withdrawn entries go, then the slices re-link (each a bounded share of a tenant). */
  async applyDeletionsAndRelinks(trx: Transaction<unknown>, t: T): Promise<void> {
    const patients = new Map<string, Patient>();
    const keys = new Map<string, RollupKey>();
    for (const kind of ['referral', 'reverse'] as const) {
      const list = this.deleted.filter((d) => d.kind === kind);
      if (list.length === 0) continue;
      const table = kind === 'referral' ? t.referrals : t.reverse_referrals;
      const dateColumn = kind === 'referral' ? 'referral_date' : 'reverse_referral_date';
      const { rows } = await sql<LeftRow>`
        DELETE FROM ${sql.table(table)} c
         USING unnest(${sql.val(list.map((d) => d.tenant_id))}::uuid[], ${sql.val(list.map((d) => d.identity))}::text[]) AS d(tenant_id, identity)
         WHERE c.tenant_id = d.tenant_id AND c.identity = d.identity
        RETURNING c.tenant_id, c.patient_key, c.medical_institution_id,
                  coalesce(c.own_department_id, ${noDepartment}::uuid)::text AS own_department_id,
                  to_char(date_trunc('month', c.${sql.ref(dateColumn)}), 'YYYY-MM-DD') AS month`.execute(trx);
      noteLeft(rows, patients, keys);
    }
    // A slice re-links its patients and notes the months that leaves to sum; the worker's rollup slices
    // and the re-link's end sum them (summed here, every slice would sum most of the tenant's months).
    for (const slice of this.relinks) {
      // The slice's patients: those with a stay or a referral (a referral may lose its stays).
      const { rows } = await sql<Patient>`
        SELECT DISTINCT tenant_id, patient_key FROM (
          SELECT a.tenant_id, a.patient_key FROM ${sql.table(t.hospital_admissions)} a
           WHERE a.tenant_id = ${slice.tenant_id}
             AND mod(hashtext(a.patient_key)::bigint + 2147483648, ${slice.buckets}) = ${slice.bucket}
          UNION ALL
          SELECT r.tenant_id, r.patient_key FROM ${sql.table(t.referrals)} r
           WHERE r.tenant_id = ${slice.tenant_id}
             AND mod(hashtext(r.patient_key)::bigint + 2147483648, ${slice.buckets}) = ${slice.bucket}) p`.execute(trx);
      await this.relinkDeferred(trx, slice.change_id, rows);
    }
    if (patients.size === 0 && keys.size === 0) return;
    await this.recompute(trx, t as never, [...patients.values()], [...keys.values()]);
  }
}
