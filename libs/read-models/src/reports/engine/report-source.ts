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
  /**
   * Only these rows (`ReportSourceRow.id`), for a source that `loadsByIds`: the engine asks for the rows
   * of one page after choosing them. Absent: every row.
   */
  ids?: readonly string[];
  /**
   * Only the values of `itemKeys` are read (any other is left empty): the engine's first phase, over
   * every row, reads nothing else. Otherwise a source may answer every attribute it reads at no extra cost.
   */
  onlyAskedValues?: boolean;
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
  /**
   * Whether `load` honours `ids` at a fraction of the cost of every row. The engine then runs a report in
   * two phases: every row with only what its filters and sorts read (the total count and the page's rows),
   * then every column for the page's rows alone.
   */
  loadsByIds?: boolean;
  /**
   * Whether `load` counts any bucket exactly to the day, not only the period unit's: the engine may then
   * ask for the period as one bucket when all it reads adds up across buckets (the sort and filters of
   * the first phase, an aggregation's sums).
   */
  answersAnyBucket?: boolean;
}
