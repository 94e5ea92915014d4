import type { ProjectionStatus, ReactorStatus } from '@renkei/projections';

/** `pnpm ops projections status` as a fixed-width table. */
export function formatProjectionStatus(rows: readonly ProjectionStatus[]): string {
  if (rows.length === 0) return 'プロジェクションはまだありません (ワーカーが一度も起動していません)。';
  const header = [
    'name',
    'version',
    'state',
    'checkpoint',
    'processed',
    'lag events',
    'lag ms',
    'events/s',
    'last error',
  ];
  const body = rows.map((r) => [
    r.name,
    String(r.version),
    r.state,
    `${r.checkpoint.primary}/${r.checkpoint.secondary}`,
    String(r.events_processed),
    String(r.lag_events),
    String(Math.round(r.lag_ms)),
    r.rate_events_per_s.toFixed(1),
    r.last_error ?? '',
  ]);
  const parked = rows.flatMap((r) =>
    r.parked_tenants.map(
      (p) =>
        `  ${r.name} (${r.state}): tenant ${p.tenant_id} parked at ${p.event_type} ${p.event_id} ` +
        `(${p.position.primary}/${p.position.secondary}), ${p.skipped_events} later events skipped: ${p.error}`,
    ),
  );
  if (parked.length === 0) return table(header, body);
  return [
    table(header, body),
    '',
    '停止中のテナント (このテナントの以降のイベントは適用されていません。原因を修正して rebuild してください):',
    ...parked,
  ].join('\n');
}

/** The reactors' part of `pnpm ops projections status` (file imports, the Kafka relay …). */
export function formatReactorStatus(rows: readonly ReactorStatus[]): string {
  if (rows.length === 0) return 'リアクターはまだありません。';
  const header = ['reactor', 'checkpoint', 'processed', 'lag events', 'lag ms', 'updated', 'last error'];
  const body = rows.map((r) => [
    r.name,
    `${r.checkpoint.primary}/${r.checkpoint.secondary}`,
    String(r.events_processed),
    String(r.lag_events),
    String(Math.round(r.lag_ms)),
    r.updated_at.toISOString(),
    r.last_error ?? '',
  ]);
  return table(header, body);
}

function table(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
