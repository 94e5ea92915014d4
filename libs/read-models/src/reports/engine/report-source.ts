import type { Kysely } from 'kysely';
import type { PeriodUnit, ReportBucket, ReportItemDefinition, ReportKind } from '@renkei/contracts';
import type { ReadModels } from '../../read-models.ts';

/** A cell as a report answers it. */
export type ReportValue = string | number | null;

/** What a source is asked to load. */
export interface ReportSourceRequest {
  tenantId: string;
  /** The buckets of the report's period (in order), and of its comparison period when it has one. */
  buckets: readonly ReportBucket[];
  comparisonBuckets: readonly ReportBucket[];
  /** The unit of both bucket lists (week buckets need weekly data: `referral_period_rollups`, daily visits). */
  periodUnit: PeriodUnit;
  /** Own departments the figures are narrowed to (empty: all). */
  ownDepartmentIds: readonly string[];
  /** Every item key the definition names (display, formula operands, filters, sorts, grouping). */
  itemKeys: ReadonlySet<string>;
}

/**
 * One row of a report before the engine shapes it: its attribute values by item key and, per periodic
 * item, the counts by bucket key. Rate items are not loaded: the engine computes them from their counts
 * (`hospital_admission_rate` = `hospital_admission_count` / `referral_count`, `operation_rate` =
 * `operation_count` / `referral_count`).
 */
export interface ReportSourceRow {
  /** Stable identity of the row (institution id, department id, `pref|city`, communication id). */
  id: string;
  /**
   * Optional natural position (own departments: their order, 「診療科なし」 last): rows the sort
   * conditions leave tied keep it, before the id decides.
   */
  order?: number;
  values: Record<string, ReportValue>;
  /** item key → bucket key → count; a bucket without a count is absent or 0, an item without any may be absent. */
  figures: Record<string, Record<string, number>>;
  /** Same, over `comparisonBuckets`. */
  comparisonFigures: Record<string, Record<string, number>>;
}

/** A report kind's data: its items (static plus the tenant's own) and its rows. */
export interface ReportSource {
  kind: ReportKind;
  /** The projections whose tables `load` reads (for the query service's read-your-writes wait). */
  reads: readonly string[];
  items(db: Kysely<ReadModels>, tenantId: string): Promise<ReportItemDefinition[]>;
  load(db: Kysely<ReadModels>, request: ReportSourceRequest): Promise<ReportSourceRow[]>;
}
