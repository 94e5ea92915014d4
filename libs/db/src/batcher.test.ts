import { describe, expect, it } from 'vitest';
import { createBatcher, refusedByServer, settle, type Settled } from './batcher.ts';

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('createBatcher', () => {
  it('sends a lone call at once and the calls that arrive meanwhile together, in order', async () => {
    const batches: number[][] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const call = createBatcher<number, number>({
      maxInFlight: 1,
      maxBatch: 3,
      async run(batch) {
        batches.push(batch);
        if (batches.length === 1) await gate;
        return batch.map((n) => ({ ok: true, value: n * 10 }));
      },
    });
    const results = [1, 2, 3, 4, 5, 6].map(call);
    await tick();
    expect(batches).toEqual([[1]]);
    release();
    expect(await Promise.all(results)).toEqual([10, 20, 30, 40, 50, 60]);
    expect(batches).toEqual([[1], [2, 3, 4], [5, 6]]);
  });

  it('sends the next batch before the callers of the last one go on', async () => {
    const order: string[] = [];
    const call = createBatcher<number, number>({
      maxInFlight: 1,
      maxBatch: 10,
      async run(batch) {
        order.push(`run ${batch.join(',')}`);
        await tick();
        return batch.map((n) => ({ ok: true, value: n }));
      },
    });
    await Promise.all([1, 2, 3].map((n) => call(n).then(() => order.push(`answered ${n}`))));
    expect(order.indexOf('run 2,3')).toBeLessThan(order.indexOf('answered 1'));
    expect(order).toHaveLength(5);
  });

  it('with gatherTurn, sends the calls of one turn of the event loop together, even the first', async () => {
    const batches: number[][] = [];
    const call = createBatcher<number, number>({
      maxInFlight: 1,
      maxBatch: 10,
      gatherTurn: true,
      async run(batch) {
        batches.push(batch);
        return batch.map((n) => ({ ok: true, value: n }));
      },
    });
    const first = [1, 2, 3].map(call);
    expect(batches).toEqual([]);
    expect(await Promise.all(first)).toEqual([1, 2, 3]);
    expect(await call(4)).toBe(4);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it('runs up to maxInFlight batches at once', async () => {
    let running = 0;
    let most = 0;
    const call = createBatcher<number, number>({
      maxInFlight: 2,
      maxBatch: 1,
      async run(batch) {
        most = Math.max(most, ++running);
        await tick();
        running--;
        return batch.map((n) => ({ ok: true, value: n }));
      },
    });
    await Promise.all([1, 2, 3, 4, 5].map(call));
    expect(most).toBe(2);
  });

  it('fails only the calls the batch failed, and every call when the batch throws', async () => {
    const call = createBatcher<number, number>({
      maxInFlight: 1,
      maxBatch: 10,
      async run(batch): Promise<Settled<number>[]> {
        if (batch.includes(99)) throw new Error('batch lost');
        return Promise.all(
          batch.map((n) =>
            settle(async () => {
              if (n % 2) throw new Error(`odd ${n}`);
              return n;
            }),
          ),
        );
      },
    });
    const results = await Promise.allSettled([2, 3, 4].map(call));
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([
      2,
      'odd 3',
      4,
    ]);
    await expect(call(99)).rejects.toThrow('batch lost');
    // The queue goes on after a failed batch.
    expect(await call(6)).toBe(6);
  });
});

describe('refusedByServer', () => {
  it('tells an error the server answered from a lost connection', () => {
    expect(refusedByServer({ severity: 'ERROR', code: '23505' })).toBe(true);
    expect(refusedByServer({ severity: 'ERROR', code: '22P02' })).toBe(true);
    expect(refusedByServer(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBe(false);
    expect(refusedByServer(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(refusedByServer(null)).toBe(false);
  });
});
