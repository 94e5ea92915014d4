import type { IntegrationEventV1, IntegrationMessage } from '../integration-events.ts';
import type { IntegrationProducer } from '../kafka-producer.ts';

/**
 * An in-memory broker for relay tests. `stored` is what the broker holds (with duplicates, as a
 * topic would); `failures` scripts the next sends: `refuse` stores nothing, `lose-ack` stores the
 * batch and then fails, like a broker whose acknowledgement never arrived.
 */
export class FakeProducer implements IntegrationProducer {
  readonly stored: IntegrationMessage[] = [];
  readonly attempts: { at: number; size: number }[] = [];
  readonly failures: ('refuse' | 'lose-ack')[] = [];
  closed = false;

  async publish(messages: readonly IntegrationMessage[]): Promise<void> {
    if (this.closed) throw new Error('closed');
    this.attempts.push({ at: Date.now(), size: messages.length });
    const failure = this.failures.shift();
    if (failure === 'refuse') throw new Error('KafkaJSConnectionError: broker unreachable');
    this.stored.push(...messages);
    if (failure === 'lose-ack') throw new Error('KafkaJSRequestTimeoutError: no acknowledgement');
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** The stored values, parsed. */
  events(): IntegrationEventV1[] {
    return this.stored.map((m) => JSON.parse(m.value) as IntegrationEventV1);
  }
}
