import type { EndpointContract } from '../core/endpoint.ts';
import { registry as defaultRegistry } from '../registry.ts';

/**
 * The text `pnpm ops contracts` prints: per area the served and not-yet-served counts, then every
 * endpoint not served yet.
 */
export function formatContractsReport(registry: readonly EndpointContract[] = defaultRegistry): string {
  const areas = new Map<string, EndpointContract[]>();
  for (const e of registry) areas.set(e.area, [...(areas.get(e.area) ?? []), e]);
  const names = [...areas.keys()].sort();

  const rows = names.map((area) => {
    const entries = areas.get(area)!;
    const served = entries.filter((e) => e.served).length;
    return [area, String(served), String(entries.length - served), String(entries.length)];
  });
  const totalServed = registry.filter((e) => e.served).length;
  const header = ['area', 'served', 'not yet', 'total'];
  const footer = ['total', String(totalServed), String(registry.length - totalServed), String(registry.length)];
  const widths = header.map((h, i) => Math.max(h.length, ...[...rows, footer].map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');

  const out = [line(header), rule, ...rows.map(line), rule, line(footer)];
  const pending = names
    .map((area) => ({ area, entries: areas.get(area)!.filter((e) => !e.served) }))
    .filter((a) => a.entries.length > 0);
  if (pending.length > 0) {
    out.push('', 'Not yet served:');
    for (const { area, entries } of pending) {
      out.push(`  ${area}`);
      for (const e of entries) out.push(`    ${e.method.padEnd(6)} ${e.path}  (${e.id}, ${e.service})`);
    }
  }
  return out.join('\n') + '\n';
}
