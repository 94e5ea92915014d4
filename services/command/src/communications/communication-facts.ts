import type { UserRef } from '@renkei/contracts';
import { communicationLabelsAggregate, ownDepartmentsAggregate, parseAccountEvent } from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore } from '@renkei/event-store';
import { readState } from '../shared/facts.ts';
import { ownDepartmentsDecider } from '../phases/phase-master.decider.ts';
import { communicationLabelsDecider } from './communication-label.decider.ts';
import type { CommunicationFacts } from './communication.decider.ts';

/**
 * Accounts of the tenant among `ids`, with their names (from identity's account events; another
 * tenant's account reads as absent).
 */
export async function accountRefs(
  store: EventStore,
  tenantId: string,
  ids: Iterable<string>,
): Promise<Map<string, UserRef>> {
  const unique = [...new Set(ids)];
  const found = await Promise.all(
    unique.map(async (id) => {
      const events = await readStreamOrEmpty(store, streamId('account', id), tenantId);
      if (events.length === 0) return null;
      let name = '';
      for (const event of events.map(parseAccountEvent)) if (event.data.username) name = event.data.username;
      return { id, name };
    }),
  );
  return new Map(found.flatMap((ref) => (ref ? [[ref.id, ref] as const] : [])));
}

/** What a record's input is checked against: the tenant's labels and departments, the accounts it names. */
export async function communicationFacts(
  store: EventStore,
  tenantId: string,
  accountIds: Iterable<string>,
): Promise<CommunicationFacts & { accounts: Map<string, UserRef> }> {
  const [labels, departments, accounts] = await Promise.all([
    readState(store, tenantId, streamId(communicationLabelsAggregate, tenantId), communicationLabelsDecider),
    readState(store, tenantId, streamId(ownDepartmentsAggregate, tenantId), ownDepartmentsDecider),
    accountRefs(store, tenantId, accountIds),
  ]);
  return {
    labels: labels.state.labels,
    ownDepartmentIds: new Set(departments.state.map((d) => d.id)),
    accountIds: new Set(accounts.keys()),
    accounts,
  };
}
