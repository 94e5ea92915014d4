// Spawned by tracking-hits.int.test.ts: answers (takes in) hits with a journal and a store that
// never stores, says so, and waits to be killed with SIGKILL.
import { randomUUID } from 'node:crypto';
import { newEventMetadata, type EventStore } from '@renkei/event-store';
import { createTrackingHitBatcher } from '../tracking-hits.ts';
import { openTrackingJournal } from '../tracking-journal.ts';

const [dir, stream, tenant, count, maxQueued] = process.argv.slice(2) as [string, string, string, string, string?];
const never = new Promise<never>(() => undefined);
const store = { appendMany: () => never, append: () => never } as unknown as EventStore;
const hits = createTrackingHitBatcher({
  store,
  logger: { error: () => undefined, warn: () => undefined },
  journal: openTrackingJournal(dir),
  maxBatch: 7,
  // With a bound, the hits beyond it are answered after the wait and spilled to the journal.
  ...(maxQueued ? { maxQueued: Number(maxQueued), maxWaitMs: 5 } : {}),
});
const answers: Promise<void>[] = [];
const ids: string[] = [];
for (let i = 0; i < Number(count); i++) {
  const id = randomUUID();
  ids.push(id);
  const answer = hits.add(stream, {
    id,
    type: 'EmailOpened',
    data: { email_address: `r${i}@example.jp` },
    metadata: newEventMetadata(tenant),
  });
  if (answer) answers.push(answer);
}
await Promise.all(answers);
// Every hit taken in has been answered as far as a reader knows: the parent kills this process now.
process.stdout.write(`${JSON.stringify(ids)}\n`);
setInterval(() => undefined, 1_000);
