import type { EndpointContract } from '@renkei/contracts';
import { applicableKinds, attackKinds, type AttackKind } from './attack-kinds.ts';

type Cell = { cases: number; failed: number; note?: string };

/** What the run attacked: endpoint × kind → cases sent, and how many of them failed. */
export class Coverage {
  private readonly cells = new Map<string, Cell>();

  mark(endpointId: string, kind: AttackKind | string, cases = 1, note?: string): void {
    const key = `${endpointId}|${kind}`;
    const cell = this.cells.get(key) ?? { cases: 0, failed: 0 };
    cell.cases += cases;
    if (note) cell.note = note;
    this.cells.set(key, cell);
  }

  fail(endpointId: string, kind: AttackKind | string): void {
    const cell = this.cells.get(`${endpointId}|${kind}`) ?? { cases: 0, failed: 0 };
    cell.failed += 1;
    this.cells.set(`${endpointId}|${kind}`, cell);
  }

  /** Applicable cells nobody attacked: each one fails the run. */
  gaps(endpoints: readonly EndpointContract[]): string[] {
    return endpoints.flatMap((e) =>
      applicableKinds(e)
        .filter((k) => !(this.cells.get(`${e.id}|${k}`)?.cases ?? 0))
        .map((k) => `${e.id} × ${k}`),
    );
  }

  totals(): { cases: number; failedCells: number } {
    let cases = 0;
    let failedCells = 0;
    for (const c of this.cells.values()) {
      cases += c.cases;
      if (c.failed) failedCells += 1;
    }
    return { cases, failedCells };
  }

  /** A Markdown matrix: cases per cell, `!` where a case failed, `–` where the kind does not apply. */
  matrix(endpoints: readonly EndpointContract[], extraRows: string[] = []): string {
    const short = (k: string) => k.replace('auth.', 'a.');
    const header = `| endpoint | ${attackKinds.map(short).join(' | ')} |`;
    const rule = `|---|${attackKinds.map(() => '---:').join('|')}|`;
    const rows = [...endpoints.map((e) => e.id), ...extraRows].map((id) => {
      const e = endpoints.find((x) => x.id === id);
      const applies = e ? applicableKinds(e) : [];
      const cells = attackKinds.map((k) => {
        const c = this.cells.get(`${id}|${k}`);
        if (!c) return e && applies.includes(k) ? '**0**' : '–';
        return `${c.cases}${c.failed ? '!' : ''}`;
      });
      return `| ${id} | ${cells.join(' | ')} |`;
    });
    return [header, rule, ...rows].join('\n');
  }
}
