import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { registry } from '../registry.ts';

const decisions = fs.readFileSync(new URL('../../../../docs/decisions.md', import.meta.url), 'utf8');
const rolesSection = decisions.slice(
  decisions.indexOf('## Roles'),
  decisions.indexOf('\n## ', decisions.indexOf('## Roles') + 1),
);

/** The endpoint ids written in the table row that starts with `who`. */
function idsOfRow(who: string): string[] {
  const row = rolesSection.split('\n').find((line) => line.replace(/\s+/g, ' ').startsWith(`| ${who} |`));
  if (!row) throw new Error(`No row "${who}" in the Roles table of docs/decisions.md`);
  return [...row.matchAll(/`([A-Za-z]+\.[A-Za-z]+)`/g)].map((m) => m[1]!).sort();
}

const idsWhere = (pick: (e: (typeof registry)[number]) => boolean) =>
  registry
    .filter(pick)
    .map((e) => e.id)
    .sort();

describe('the roles matrix of docs/decisions.md', () => {
  it('lists exactly the owner-only entries of the registry', () => {
    expect(idsOfRow('owner only')).toEqual(idsWhere((e) => e.ownerOnly === true));
  });

  it('lists exactly the support-account entries of the registry', () => {
    expect(idsOfRow('support account only')).toEqual(idsWhere((e) => e.csAccount === 'only'));
    expect(idsOfRow('never the support account')).toEqual(idsWhere((e) => e.csAccount === 'denied'));
  });
});
