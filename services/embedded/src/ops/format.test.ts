import { describe, expect, it } from 'vitest';
import { formatProjectionStatus, formatReactorStatus } from './format.ts';

describe('projection status table', () => {
  it('lists the parked tenants under the table', () => {
    const now = new Date();
    const text = formatProjectionStatus([
      {
        name: 'medical_institution_crm',
        version: 3,
        suffix: 'v3',
        state: 'live',
        checkpoint: { primary: 9n, secondary: 90n },
        events_processed: 90,
        lag_events: 0,
        lag_ms: 0,
        rate_events_per_s: 0,
        started_at: now,
        updated_at: now,
        last_error: null,
        parked_tenants: [
          {
            tenant_id: 't-1',
            event_id: 'e-1',
            event_type: 'PhaseMastersReplaced',
            position: { primary: 5n, secondary: 50n },
            error: 'error: duplicate key',
            skipped_events: 4,
            parked_at: now,
          },
        ],
      },
    ]);
    expect(text).toContain('停止中のテナント');
    expect(text).toMatch(
      /medical_institution_crm \(live\): tenant t-1 parked at PhaseMastersReplaced e-1 \(5\/50\), 4 later events skipped: error: duplicate key/,
    );
  });

  it('prints one aligned row per build', () => {
    const now = new Date();
    const text = formatProjectionStatus([
      {
        name: 'tags',
        version: 3,
        suffix: 'v3',
        state: 'live',
        checkpoint: { primary: 812n, secondary: 40n },
        events_processed: 40,
        lag_events: 0,
        lag_ms: 0,
        rate_events_per_s: 1234.56,
        started_at: now,
        updated_at: now,
        last_error: null,
        parked_tenants: [],
      },
      {
        name: 'medical_institutions',
        version: 2,
        suffix: 'v2_r1',
        state: 'rebuilding',
        checkpoint: { primary: 0n, secondary: 0n },
        events_processed: 0,
        lag_events: 1500,
        lag_ms: 2500.4,
        rate_events_per_s: 0,
        started_at: now,
        updated_at: now,
        last_error: 'boom',
        parked_tenants: [],
      },
    ]);
    const lines = text.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[2]).toMatch(/^tags\s+3\s+live\s+812\/40\s+40\s+0\s+0\s+1234\.6$/);
    expect(lines[3]).toMatch(/rebuilding\s+0\/0\s+0\s+1500\s+2500\s+0\.0\s+boom$/);
    expect(lines[0]!.indexOf('version')).toBe(lines[2]!.indexOf('3'));
  });

  it('says so when no projection has run yet', () => {
    expect(formatProjectionStatus([])).toMatch(/まだありません/);
  });
});

describe('reactor status table', () => {
  it('prints one aligned row per reactor with its lag and last error', () => {
    const text = formatReactorStatus([
      {
        name: 'integration_kafka_relay',
        checkpoint: { primary: 900n, secondary: 77n },
        events_processed: 77,
        lag_events: 3,
        lag_ms: 120.6,
        updated_at: new Date('2026-11-22T03:00:00Z'),
        last_error: 'KafkaJSConnectionError: refused',
      },
    ]);
    const lines = text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(
      /^integration_kafka_relay\s+900\/77\s+77\s+3\s+121\s+2026-11-22T03:00:00\.000Z\s+KafkaJSConnectionError: refused$/,
    );
    expect(formatReactorStatus([])).toMatch(/まだありません/);
  });
});
