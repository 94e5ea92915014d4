import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { formatContractsReport } from './contracts-report.ts';

const entry = (id: string, area: string, path: string, served: boolean) =>
  endpoint({
    id,
    area,
    method: 'GET',
    path,
    service: 'query',
    summary: id,
    response: z.string(),
    successStatus: 200,
    feature: null,
    served,
  });

describe('formatContractsReport', () => {
  it('counts served and not yet served per area and lists the pending ones', () => {
    const text = formatContractsReport([
      entry('tags.list', 'tags', '/tags', true),
      entry('tags.groups', 'tags', '/tag_groups', false),
      entry('alerts.list', 'alerts', '/alerts', false),
    ]);
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^area\s+served\s+not yet\s+total$/);
    expect(lines.find((l) => l.startsWith('alerts'))).toMatch(/^alerts\s+0\s+1\s+1$/);
    expect(lines.find((l) => l.startsWith('tags'))).toMatch(/^tags\s+1\s+1\s+2$/);
    expect(lines.find((l) => l.startsWith('total'))).toMatch(/^total\s+1\s+2\s+3$/);
    expect(text).toContain('GET    /tag_groups  (tags.groups, query)');
    expect(text).not.toContain('(tags.list,');
    expect(text.indexOf('  alerts')).toBeLessThan(text.indexOf('  tags'));
  });

  it('has no pending section when everything is served', () => {
    expect(formatContractsReport([entry('tags.list', 'tags', '/tags', true)])).not.toContain('Not yet served');
  });
});
