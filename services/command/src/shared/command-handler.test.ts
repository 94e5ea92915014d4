import { describe, expect, it } from 'vitest';
import { HttpError } from '@renkei/contracts';
import { UnknownEventError } from '@renkei/domain';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
} from '@renkei/event-store';
import type { AuthContext } from '@renkei/service-kit';
import { handleCommand } from './command-handler.ts';
import { tagDecider } from '../tags/tag.decider.ts';

const tenantId = '0f8fad5b-d9cb-469f-a165-70867728950e';
const tagId = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const stream = `tag-${tagId}`;
const auth = { tenantId, accountId: tenantId } as AuthContext;

/** A store holding one stream in memory; `raceOnce` lets another writer in before the next append. */
function memoryStore(raceOnce?: () => void) {
  const events: RecordedEvent[] = [];
  const appended: { expected: ExpectedRevision; events: NewEvent[] }[] = [];
  const record = (e: Omit<NewEvent, 'metadata'>, metadata = { tenant_id: tenantId, schema_version: 1 }) =>
    events.push({
      id: String(events.length),
      stream,
      revision: events.length,
      position: { primary: 1n, secondary: BigInt(events.length) },
      type: e.type,
      data: e.data,
      metadata: { account_id: null, correlation_id: 'c', causation_id: null, ...metadata },
      created_at: new Date(),
    });
  let race = raceOnce;
  const store = {
    readStream: async () => [...events],
    append: async (_s: string, news: NewEvent[], o: { expectedRevision: ExpectedRevision }): Promise<AppendResult> => {
      if (race) {
        race();
        race = undefined;
      }
      const actual = events.length - 1;
      if (o.expectedRevision !== actual && !(o.expectedRevision === 'no_stream' && actual === -1))
        throw new WrongExpectedRevisionError(stream, o.expectedRevision, actual);
      appended.push({ expected: o.expectedRevision, events: news });
      for (const e of news) record(e);
      return { revision: events.length - 1, position: events.at(-1)!.position };
    },
  } as unknown as EventStore;
  return { store, record, appended };
}

const created = { type: 'TagCreated', data: { tag_id: tagId, name: 'a', description: '', group_name: null } };
const update = (name: string) => ({ type: 'UpdateTag' as const, tagId, name, description: '', groupName: null });

describe('handleCommand', () => {
  it('appends what the decider decided with the caller as metadata, at the revision read', async () => {
    const { store, record, appended } = memoryStore();
    record(created);
    const result = await handleCommand(
      { store, auth, requestId: 'req-1' },
      { stream, decider: tagDecider, command: update('b'), onRace: 'conflict' },
    );
    expect(result.revision).toBe(1);
    expect(appended).toHaveLength(1);
    expect(appended[0]!.expected).toBe(0);
    expect(appended[0]!.events[0]!.metadata).toMatchObject({ tenant_id: tenantId, correlation_id: 'req-1' });
  });

  it('decides again on a lost race when recomputing is safe, and answers 409 when it is not', async () => {
    const racing = memoryStore(() => racing.record({ ...created, type: 'TagUpdated' }));
    racing.record(created);
    const recomputed = await handleCommand(
      { store: racing.store, auth, requestId: 'r' },
      { stream, decider: tagDecider, command: update('b'), onRace: 'recompute' },
    );
    expect(recomputed.revision).toBe(2);
    const conflicting = memoryStore(() => conflicting.record({ ...created, type: 'TagUpdated' }));
    conflicting.record(created);
    await expect(
      handleCommand(
        { store: conflicting.store, auth, requestId: 'r' },
        { stream, decider: tagDecider, command: update('b'), onRace: 'conflict' },
      ),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
  });

  it('answers 404 for a missing record before a stale If-Match, and 409 for a stale If-Match', async () => {
    const { store, record } = memoryStore();
    const ifMatch = { matches: (_: unknown, revision: number) => revision === 5 };
    await expect(
      handleCommand(
        { store, auth, requestId: 'r' },
        { stream, decider: tagDecider, command: update('b'), ifMatch, onRace: 'conflict' },
      ),
    ).rejects.toMatchObject({ status: 404 });
    record(created);
    const stale = handleCommand(
      { store, auth, requestId: 'r' },
      { stream, decider: tagDecider, command: update('b'), ifMatch, onRace: 'conflict' },
    );
    await expect(stale).rejects.toBeInstanceOf(HttpError);
    await expect(stale).rejects.toMatchObject({ status: 409 });
  });

  it('fails loudly on an event its stream’s schemas do not know', async () => {
    const { store, record } = memoryStore();
    record(created);
    record({ type: 'TagRecoloured', data: {} });
    await expect(
      handleCommand(
        { store, auth, requestId: 'r' },
        { stream, decider: tagDecider, command: update('b'), onRace: 'conflict' },
      ),
    ).rejects.toBeInstanceOf(UnknownEventError);
    const newer = memoryStore();
    newer.record(created, { tenant_id: tenantId, schema_version: 2 });
    await expect(
      handleCommand(
        { store: newer.store, auth, requestId: 'r' },
        { stream, decider: tagDecider, command: update('b'), onRace: 'conflict' },
      ),
    ).rejects.toBeInstanceOf(UnknownEventError);
  });

  describe('adopt: a record that lives elsewhere until its first write', () => {
    const beginning = () => Promise.resolve({ events: [tagDecider.parse(created)], eventId: () => 'adopted-1' });

    it('decides on the adopted beginning and appends it before the decided events, expecting no stream', async () => {
      const { store, appended } = memoryStore();
      const result = await handleCommand(
        { store, auth, requestId: 'r' },
        { stream, decider: tagDecider, command: update('b'), onRace: 'conflict', adopt: beginning },
      );
      expect(appended).toHaveLength(1);
      expect(appended[0]!.expected).toBe('no_stream');
      expect(appended[0]!.events.map((e) => [e.id, e.type])).toEqual([
        ['adopted-1', 'TagCreated'],
        [undefined, 'TagUpdated'],
      ]);
      expect(appended[0]!.events[0]!.metadata).toMatchObject({ correlation_id: 'r' });
      expect(result.revision).toBe(1);
      expect(result.events.map((e) => e.type)).toEqual(['TagUpdated']);
    });

    it('checks If-Match against the adopted beginning as if it were stored, and appends nothing on a 409', async () => {
      const { store, appended } = memoryStore();
      const revisions: number[] = [];
      const ifMatch = {
        matches: (_: unknown, revision: number) => {
          revisions.push(revision);
          return false;
        },
      };
      await expect(
        handleCommand(
          { store, auth, requestId: 'r' },
          { stream, decider: tagDecider, command: update('b'), ifMatch, onRace: 'conflict', adopt: beginning },
        ),
      ).rejects.toMatchObject({ status: 409 });
      expect(revisions).toEqual([0]);
      expect(appended).toEqual([]);
    });

    it('is not asked once the stream exists, and a missing record stays a 404', async () => {
      const { store, record, appended } = memoryStore();
      await expect(
        handleCommand(
          { store, auth, requestId: 'r' },
          { stream, decider: tagDecider, command: update('b'), onRace: 'conflict', adopt: async () => null },
        ),
      ).rejects.toMatchObject({ status: 404 });
      record(created);
      let asked = 0;
      await handleCommand(
        { store, auth, requestId: 'r' },
        {
          stream,
          decider: tagDecider,
          command: update('b'),
          onRace: 'conflict',
          adopt: () => {
            asked++;
            return beginning();
          },
        },
      );
      expect(asked).toBe(0);
      expect(appended[0]!.expected).toBe(0);
      expect(appended[0]!.events.map((e) => e.type)).toEqual(['TagUpdated']);
    });

    it('lets one of two first writes adopt: the other meets the race (decided again on the stream, or a 409)', async () => {
      const racing = memoryStore(() => racing.record(created));
      const recomputed = await handleCommand(
        { store: racing.store, auth, requestId: 'r' },
        { stream, decider: tagDecider, command: update('b'), onRace: 'recompute', adopt: beginning },
      );
      // The second try read the stream the other writer began and adopted nothing.
      expect(racing.appended.map((a) => [a.expected, a.events.map((e) => e.type)])).toEqual([[0, ['TagUpdated']]]);
      expect(recomputed.revision).toBe(1);
      const conflicting = memoryStore(() => conflicting.record(created));
      await expect(
        handleCommand(
          { store: conflicting.store, auth, requestId: 'r' },
          { stream, decider: tagDecider, command: update('b'), onRace: 'conflict', adopt: beginning },
        ),
      ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect(conflicting.appended).toEqual([]);
    });
  });
});
