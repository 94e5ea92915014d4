import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registry } from '../registry.ts';
import { endpoint } from '../core/endpoint.ts';
import { Id, queryArray, queryBoolean } from '../core/zod-helpers.ts';
import { buildOpenApiDocument } from './openapi.ts';

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, any>>;
  components: { schemas: Record<string, any>; securitySchemes: Record<string, any> };
};

describe('buildOpenApiDocument', () => {
  const doc = buildOpenApiDocument() as Doc;

  it('is OpenAPI 3.1 and lists every registry entry once under its path and method', () => {
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    expect(operations.sort()).toEqual(registry.map((e) => `${e.method} ${e.path} ${e.id}`).sort());
  });

  it('writes path parameters in braces and declares each one', () => {
    for (const [path, methods] of Object.entries(doc.paths)) {
      expect(path).not.toMatch(/:/);
      const names = [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
      for (const op of Object.values(methods)) {
        const declared = op.parameters.filter((p: any) => p.in === 'path').map((p: any) => p.name);
        expect(declared).toEqual(names);
      }
    }
    expect(doc.paths['/medical_institutions/{medical_institution_id}/doctors/{id}']).toBeDefined();
  });

  it('describes query parameters, bodies, the error shape and the bearer audience', () => {
    const listTags = doc.paths['/tags']!.get;
    expect(listTags.parameters.filter((p: any) => p.in === 'query').map((p: any) => p.name)).toEqual([
      'page',
      'per_page',
      'sort',
    ]);
    expect(listTags.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name)).toEqual([
      'x-client-version',
      'x-min-position',
    ]);
    expect(listTags.security).toEqual([{ query: [] }]);
    expect(listTags.responses['401'].content['application/json'].schema.$ref).toBe('#/components/schemas/ErrorBody');
    expect(doc.components.schemas.ErrorBody.properties).toHaveProperty('errors');
    expect(doc.components.securitySchemes.command.scheme).toBe('bearer');

    const createTag = doc.paths['/tags']!.post;
    expect(createTag.security).toEqual([{ command: [] }]);
    expect(createTag.requestBody.content['application/json'].schema.properties).toHaveProperty('name');
    expect(createTag.responses).toHaveProperty('201');
    expect(createTag.responses).toHaveProperty('422');
    expect(createTag.responses).toHaveProperty('409');

    expect(createTag.parameters.map((p: any) => p.name)).toContain('Idempotency-Key');
    expect(createTag.responses['201'].headers).toHaveProperty('x-position');

    const deleteTag = doc.paths['/tags/{id}']!.delete;
    expect(deleteTag.parameters.map((p: any) => p.name)).toContain('If-Match');
    expect(deleteTag.responses['204'].content).toBeUndefined();
    expect(deleteTag.responses).toHaveProperty('404');
  });

  it('shows what a preprocessed query parameter accepts instead of any value', () => {
    const fixture = endpoint({
      id: 'things.list',
      area: 'things',
      method: 'GET',
      path: '/things',
      service: 'query',
      summary: 'list',
      query: z.object({ ids: queryArray(Id).optional(), done: queryBoolean.optional() }),
      response: z.array(z.string()),
      successStatus: 200,
      feature: null,
      served: false,
    });
    const params = (buildOpenApiDocument({ registry: [fixture] }) as Doc).paths['/things']!.get.parameters;
    expect(params.find((p: any) => p.name === 'ids').schema).toMatchObject({
      type: 'array',
      items: { type: 'string', format: 'uuid' },
    });
    expect(params.find((p: any) => p.name === 'done').schema).toMatchObject({ type: 'boolean' });
  });

  it('describes multipart uploads with a file part and downloads as CSV', () => {
    const upload = doc.paths['/imports/medical_institution_label_values']!.post;
    const schema = upload.requestBody.content['multipart/form-data'].schema;
    expect(schema.properties).toHaveProperty('file');
    expect(schema.required).toContain('file');
    const exportCsv = doc.paths['/medical_institutions/search_results/export']!.post;
    expect(exportCsv.responses['200'].content).toHaveProperty('text/csv');
  });

  it('filters by service and by served', () => {
    const query = buildOpenApiDocument({ service: 'query' }) as Doc;
    const services = Object.values(query.paths).flatMap((m) => Object.values(m).map((op) => op['x-service']));
    expect(new Set(services)).toEqual(new Set(['query']));
    const served = buildOpenApiDocument({ servedOnly: true }) as Doc;
    const count = Object.values(served.paths).reduce((n, m) => n + Object.keys(m).length, 0);
    expect(count).toBe(registry.filter((e) => e.served).length);
  });
});
