import { HttpError, type CommunicationUpdateInput } from '@renkei/contracts';
import { communicationAggregate, stableJson, type CommunicationFields } from '@renkei/domain';
import { readStreamOrEmpty, streamId, type EventStore, type RecordedEvent } from '@renkei/event-store';
import type { AuthContext } from '@renkei/service-kit';
import { communicationFacts } from '../communications/communication-facts.ts';
import {
  communicationDecider,
  type CommunicationCommand,
  type CommunicationFacts,
  type CommunicationState,
} from '../communications/communication.decider.ts';
import { handleCommand } from '../shared/command-handler.ts';
import { deterministicId } from '../shared/deterministic-id.ts';
import { fold, isRejection } from '../shared/decider.ts';

/** Records restored at once (each its own command; the store's group commit joins them). */
const restoreBatch = 50;
/** Tries per record when someone saves it between the read and the restore. */
const restoreAttempts = 3;

type RestorableField = Exclude<keyof CommunicationFields, 'communication_id' | 'medical_institution_id'>;

/**
 * What undoing an update import asks of one record: its fields before the import's first change, for
 * every field the import changed and nobody has changed since (a later hand edit of a field wins over
 * the undo; attachments an import never touches stay as they are). Null: nothing to restore — the
 * import did not change the record (its row changed nothing, or failed), the record was deleted, or
 * every changed field was edited again since.
 */
function restoreOf(
  events: readonly RecordedEvent[],
  importId: string,
): { state: CommunicationState; input: CommunicationUpdateInput } | null {
  const parsed = events.map((e) => communicationDecider.parse(e));
  const byImport = (e: RecordedEvent) => e.type === 'CommunicationUpdated' && e.metadata.correlation_id === importId;
  const first = events.findIndex(byImport);
  if (first < 0) return null;
  const last = events.findLastIndex(byImport);
  const before = fold(communicationDecider, parsed.slice(0, first)).fields;
  const imported = fold(communicationDecider, parsed.slice(0, last + 1)).fields;
  const state = fold(communicationDecider, parsed);
  if (state.status !== 'active' || !before || !imported) return null;
  const current = state.fields!;
  const restored: CommunicationFields = { ...current };
  let changes = 0;
  for (const key of Object.keys(current) as (keyof CommunicationFields)[]) {
    if (key === 'communication_id' || key === 'medical_institution_id' || key === 'attachment_ids') continue;
    const field = key as RestorableField;
    if (
      stableJson(current[field]) === stableJson(imported[field]) &&
      stableJson(before[field]) !== stableJson(current[field])
    ) {
      (restored as Record<RestorableField, unknown>)[field] = before[field];
      changes++;
    }
  }
  if (changes === 0) return null;
  const { communication_id: _id, medical_institution_id: _institution, ...input } = restored;
  return { state, input };
}

const commandOf = (auth: AuthContext, id: string, input: CommunicationUpdateInput, facts: CommunicationFacts) =>
  ({ type: 'UpdateCommunication', communicationId: id, callerId: auth.accountId, input, facts }) as const;

/** The facts a restore is checked against: the record's own files are its own (an undo keeps them). */
const factsFor = (facts: CommunicationFacts, id: string, input: CommunicationUpdateInput): CommunicationFacts => ({
  ...facts,
  files: new Map(input.attachment_ids.map((fileId) => [fileId, id])),
});

/**
 * Undoes an update import: each record it changed gets its previous values back through the
 * communication's own command (the rules of a hand edit: staff of the tenant, label values fitting
 * today's labels, required labels answered). Every restore is checked first; when today's rules
 * refuse one (a label deleted or made required since), nothing is restored and the answer is a 409
 * naming how many records and why, so the undo is all or nothing. A record saved by someone between
 * the check and the restore is read and decided again.
 */
export async function restoreChanged(
  store: EventStore,
  auth: AuthContext,
  requestId: string,
  importId: string,
  changedIds: readonly string[],
): Promise<void> {
  const ids = [...new Set(changedIds)];
  const plans = new Map<string, NonNullable<ReturnType<typeof restoreOf>>>();
  for (let i = 0; i < ids.length; i += restoreBatch)
    await Promise.all(
      ids.slice(i, i + restoreBatch).map(async (id) => {
        const plan = restoreOf(
          await readStreamOrEmpty(store, streamId(communicationAggregate, id), auth.tenantId),
          importId,
        );
        if (plan) plans.set(id, plan);
      }),
    );
  if (plans.size === 0) return;
  const facts = await communicationFacts(
    store,
    auth.tenantId,
    [...plans.values()].map((p) => p.input.user_id ?? auth.accountId),
  );
  const refused: string[] = [];
  for (const [id, plan] of plans) {
    const decision = communicationDecider.decide(
      plan.state,
      commandOf(auth, id, plan.input, factsFor(facts, id, plan.input)),
      new Date(),
    );
    if (isRejection(decision) && decision.rejected === 'invalid') refused.push(decision.errors[0]?.message ?? '');
  }
  if (refused.length > 0)
    throw new HttpError(
      409,
      `${refused.length}件の活動記録は、取り込み後に変わった設定のため元の値に戻せません（${refused[0]}）。活動ラベルの設定を確認してから、もう一度取り消してください。`,
    );
  const entries = [...plans.keys()];
  for (let i = 0; i < entries.length; i += restoreBatch)
    await Promise.all(
      entries.slice(i, i + restoreBatch).map((id) => restoreOne(store, auth, requestId, importId, id, facts)),
    );
}

async function restoreOne(
  store: EventStore,
  auth: AuthContext,
  requestId: string,
  importId: string,
  id: string,
  facts: CommunicationFacts,
): Promise<void> {
  const stream = streamId(communicationAggregate, id);
  for (let attempt = 1; ; attempt++) {
    const plan = restoreOf(await readStreamOrEmpty(store, stream, auth.tenantId), importId);
    if (!plan) return;
    try {
      await handleCommand(
        { store, auth, requestId },
        {
          stream,
          decider: communicationDecider,
          command: commandOf(auth, id, plan.input, factsFor(facts, id, plan.input)) as CommunicationCommand,
          // Decided on the version read: a save in between is read again, not overwritten.
          ifMatch: { matches: (state: CommunicationState) => state.version === plan.state.version },
          onRace: 'conflict',
          eventId: (i) => deterministicId(importId, 'undo', id, String(plan.state.version), String(i)),
        },
      );
      return;
    } catch (error) {
      if (error instanceof HttpError && error.status === 404) return;
      if (!(error instanceof HttpError && error.status === 409) || attempt >= restoreAttempts) throw error;
    }
  }
}
