import { OwnDepartmentsReplaced, ownDepartmentsAggregate } from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore } from '@renkei/event-store';

/**
 * The ids of the tenant's own departments as its owners last set them (PUT /own_medical_institution/departments).
 * Identity reads that one short stream of the shared store, as it does the admission period, instead of
 * keeping a copy that could lag behind a removal.
 */
export async function ownDepartmentIds(store: EventStore, tenantId: string): Promise<ReadonlySet<string>> {
  const events = await readStreamOrEmpty(store, streamId(ownDepartmentsAggregate, tenantId), tenantId, [
    'OwnDepartmentsReplaced',
  ]);
  const last = events.at(-1);
  return new Set(last ? OwnDepartmentsReplaced.parse(last.data).own_departments.map((d) => d.id) : []);
}

/** An account's own department as it reads: null once the tenant has removed that department from its list. */
export const currentOwnDepartment = (stored: string | null, ids: ReadonlySet<string>): string | null =>
  stored !== null && ids.has(stored) ? stored : null;
