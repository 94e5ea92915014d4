import { z } from 'zod';
import { audienceOf, pathParamNames, type EndpointContract, type OwningService } from '../core/endpoint.ts';
import {
  clientVersion,
  clientVersionHeader,
  defaultResources,
  minPositionHeader,
  positionHeader,
  scopeFor,
} from '../core/auth.ts';
import { ErrorBody, errorMessages } from '../core/errors.ts';
import { registry as defaultRegistry } from '../registry.ts';

type JsonSchema = Record<string, unknown>;

export interface OpenApiOptions {
  /** Only this service's endpoints (each service serves its own document). */
  service?: OwningService;
  /** Only endpoints a handler answers today. */
  servedOnly?: boolean;
  /** Token audiences per service; defaults to the built-in provider's. */
  resources?: { main: string; query: string; command: string };
  registry?: readonly EndpointContract[];
}

function toSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    io,
    // A transform has no JSON Schema of its own: it becomes "any value" unless `describePreprocess` helps.
    unrepresentable: 'any',
    target: 'draft-2020-12',
    override: io === 'input' ? describePreprocess : undefined,
  }) as JsonSchema;
  delete json.$schema;
  return slim(json) as JsonSchema;
}

/**
 * `z.preprocess(fn, target)` (as in `queryArray`, `queryBoolean`) is a pipe from a transform: the
 * caller sends what `target` accepts, so the document shows `target` instead of "any value".
 */
function describePreprocess(ctx: { zodSchema: unknown; jsonSchema: Record<string, unknown> }): void {
  const def = (ctx.zodSchema as { _zod: { def: { type: string; in?: z.ZodType; out?: z.ZodType } } })._zod.def;
  if (def.type !== 'pipe' || !def.in || !def.out) return;
  if ((def.in as unknown as { _zod: { def: { type: string } } })._zod.def.type !== 'transform') return;
  const target = toSchema(def.out, 'input');
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, target);
}

/** zod writes its uuid regex beside `format: uuid` on every id; the format says the same in far fewer bytes. */
function slim(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(slim);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = slim(value);
  if (out.format === 'uuid') delete out.pattern;
  return out;
}

function errorResponse(status: keyof typeof errorMessages) {
  return {
    description: errorMessages[status],
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
  };
}

const header = (name: string, description: string, schema: JsonSchema = { type: 'string' }) => ({
  name,
  in: 'header',
  required: false,
  description,
  schema,
});

function headerParameters(contract: EndpointContract): JsonSchema[] {
  const result = [header(clientVersionHeader, `クライアントとその版（例: ${clientVersion}）`)];
  if (contract.service === 'query') {
    result.push(
      header(minPositionHeader, '書き込み応答の X-Position。読み取りモデルがそこまで追いつくのを待ってから答えます'),
    );
  }
  if (contract.service === 'command' && contract.method === 'POST') {
    result.push(header('Idempotency-Key', '同じキーの再送は最初の結果を返し、二重に登録しません'));
  }
  if (contract.service === 'command' && (contract.method === 'PUT' || contract.method === 'DELETE')) {
    result.push(header('If-Match', '取得時の version（ETag）。一致しなければ 409'));
  }
  return result;
}

function parameters(contract: EndpointContract): JsonSchema[] {
  const result: JsonSchema[] = [];
  if (contract.params) {
    const json = toSchema(contract.params, 'input');
    const props = (json.properties ?? {}) as Record<string, JsonSchema>;
    for (const name of pathParamNames(contract.path)) {
      result.push({ name, in: 'path', required: true, schema: props[name] ?? { type: 'string' } });
    }
  }
  if (contract.query) {
    const json = toSchema(contract.query, 'input');
    const props = (json.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((json.required ?? []) as string[]);
    for (const [name, schema] of Object.entries(props)) {
      const isObject = schema.type === 'object';
      result.push({
        name,
        in: 'query',
        required: required.has(name) && schema.default === undefined,
        schema,
        // Spec §7: arrays repeat their key, nested objects use bracket keys.
        ...(isObject ? { style: 'deepObject', explode: true } : { style: 'form', explode: true }),
      });
    }
  }
  return [...result, ...headerParameters(contract)];
}

function requestBody(contract: EndpointContract): JsonSchema | undefined {
  if (!contract.body) return undefined;
  const schema = toSchema(contract.body, 'input');
  if (contract.multipart) {
    const properties = {
      ...((schema.properties ?? {}) as JsonSchema),
      file: { type: 'string', contentMediaType: 'application/octet-stream' },
    };
    return {
      required: true,
      content: {
        'multipart/form-data': {
          schema: { ...schema, properties, required: [...((schema.required ?? []) as string[]), 'file'] },
        },
      },
    };
  }
  return { required: true, content: { 'application/json': { schema } } };
}

function successResponse(contract: EndpointContract): JsonSchema {
  const headers =
    contract.service === 'command'
      ? {
          headers: {
            [positionHeader]: {
              description: '最後に書いたイベントの位置。続く読み取りで X-Min-Position に渡します',
              schema: { type: 'string' },
            },
          },
        }
      : {};
  if (contract.successStatus === 204) return { description: '成功（本文なし）', ...headers };
  if (contract.download === 'image') {
    return {
      description: '画像ファイル',
      content: { 'image/*': { schema: { type: 'string', format: 'binary' } } },
      ...headers,
    };
  }
  if (contract.download) {
    return { description: 'CSVファイル', content: { 'text/csv': { schema: { type: 'string' } } }, ...headers };
  }
  return {
    description: '成功',
    content: { 'application/json': { schema: toSchema(contract.response, 'output') } },
    ...headers,
  };
}

function operation(contract: EndpointContract): JsonSchema {
  const responses: Record<string, unknown> = {
    [String(contract.successStatus)]: successResponse(contract),
    401: errorResponse(401),
    403: errorResponse(403),
  };
  if (contract.params) responses[404] = errorResponse(404);
  if (contract.method !== 'GET' && contract.service !== 'query') responses[409] = errorResponse(409);
  if (contract.params || contract.query || contract.body) responses[422] = errorResponse(422);
  responses[429] = errorResponse(429);
  responses[500] = errorResponse(500);
  responses[503] = errorResponse(503);

  const op: JsonSchema = {
    operationId: contract.id,
    summary: contract.summary,
    tags: [contract.area],
    parameters: parameters(contract),
    responses,
    security: [{ [audienceOf[contract.service]]: [] }],
    'x-service': contract.service,
    'x-feature': contract.feature,
    'x-owner-only': contract.ownerOnly ?? false,
    'x-cs-account': contract.csAccount ?? null,
    'x-served': contract.served,
  };
  const body = requestBody(contract);
  if (body) op.requestBody = body;
  return op;
}

/** An OpenAPI 3.1 document generated from the registry. Paths are relative to the `/api` server. */
export function buildOpenApiDocument(options: OpenApiOptions = {}): JsonSchema {
  const resources = options.resources ?? defaultResources;
  const entries = (options.registry ?? defaultRegistry).filter(
    (e) => (!options.service || e.service === options.service) && (!options.servedOnly || e.served),
  );
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const e of entries) {
    (paths[e.path] ??= {})[e.method.toLowerCase()] = operation(e);
  }
  const bearer = (resource: string) => ({
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: `Access token for audience ${resource} (scope ${scopeFor(resource)}).`,
  });
  return {
    openapi: '3.1.0',
    info: {
      title: options.service ? `Renkei ${options.service} API` : 'Renkei API',
      version: '1.0',
      description: '連携 (Renkei) の HTTP API。契約は libs/contracts のレジストリから生成されています。',
    },
    servers: [{ url: '/api' }],
    paths,
    components: {
      schemas: { ErrorBody: toSchema(ErrorBody, 'output') },
      securitySchemes: {
        main: bearer(resources.main),
        query: bearer(resources.query),
        command: bearer(resources.command),
      },
    },
  };
}
