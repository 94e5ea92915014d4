import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import {
  audienceOf,
  fillPath,
  minPositionHeader,
  positionHeader,
  listColumns,
  registry,
  ReportKind,
  staticReportItems,
  type Audience,
  type EndpointContract,
  type MappedListType,
} from '@renkei/contracts';
import { emailDeliveryAggregate } from '@renkei/domain';
import { streamId } from '@renkei/event-store';
import { inputJsonSchema, validArbitrary } from './arbitraries.ts';
import type { SuiteResponse } from './client.ts';
import { Coverage } from './coverage.ts';
import {
  answerableType,
  bodyRefs,
  communicationFacts,
  endpointFixtures,
  fixtures,
  innermostKind,
  paramsFrom,
  pathParamKinds,
  type FixtureApi,
  type RecordIds,
} from './fixtures.ts';
import { settledState, type TenantState } from './state.ts';
import { startSuiteSystem, type SuiteSystem, type SuiteTenant } from './system.ts';

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** `pnpm test:reliability --long` sets this: many more generated inputs per endpoint. */
const long = process.env.RELIABILITY_LONG === '1';
/** Valid inputs per endpoint; invalid variants per mutation kind are all sent once per sample. */
export const fuzzRuns = { valid: long ? 500 : 12, invalidSamples: long ? 20 : 1 };

export const served: readonly EndpointContract[] = registry.filter((e) => e.served);

export interface Caller {
  readonly tenant: SuiteTenant;
  readonly email: string;
}

export interface CallInput {
  params?: Record<string, string>;
  /** Inserted into the path unencoded (attacks send malformed escapes on purpose). */
  rawParams?: boolean;
  query?: Record<string, unknown>;
  rawQuery?: string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Overrides the caller's token (auth attacks); null sends no Authorization header. */
  token?: string | null;
}

/**
 * A query value as sent on the wire. A lone UTF-16 surrogate goes as the UTF-8 bytes of its code unit
 * (`%ED%A0%80` for U+D800), as a client encoding a JavaScript string byte by byte sends it:
 * `encodeURIComponent` throws on it and URLSearchParams sends U+FFFD, a valid character, so the
 * attack would never reach the server.
 */
function encodeQueryPart(text: string): string {
  let out = '';
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    out +=
      code >= 0xd800 && code <= 0xdfff
        ? [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)]
            .map((b) => `%${b.toString(16).toUpperCase()}`)
            .join('')
        : encodeURIComponent(ch);
  }
  return out;
}

/**
 * The query string as the web client sends it (spec §7, `encodeQuery` of @renkei/contracts): array keys
 * repeated, nested objects as bracket keys (`referral_period[from]=…`), arrays of objects indexed; each
 * part through `encodeQueryPart`, brackets kept readable.
 */
function queryString(query: Record<string, unknown> | undefined): string {
  const pairs: string[] = [];
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
  const walk = (key: string, value: unknown): void => {
    if (value === undefined) return;
    if (Array.isArray(value)) {
      value.forEach((item, i) => walk(isObject(item) ? `${key}[${i}]` : key, item));
      return;
    }
    if (isObject(value)) {
      for (const [k, v] of Object.entries(value)) walk(`${key}[${k}]`, v);
      return;
    }
    const text = value instanceof Date ? value.toISOString() : String(value);
    const name = encodeQueryPart(key).replace(/%5B/g, '[').replace(/%5D/g, ']');
    pairs.push(`${name}=${encodeQueryPart(text)}`);
  };
  for (const [key, value] of Object.entries(query ?? {})) walk(key, value);
  return pairs.join('&');
}

/** The running system, its tenants and callers, and what the run covered. */
export class Suite {
  system!: SuiteSystem;
  readonly coverage = new Coverage();
  readonly canary = { a: `CNRYA${randomUUID().slice(0, 6)}`, b: `CNRYB${randomUUID().slice(0, 6)}` };
  owner!: { a: Caller; b: Caller; limited: Caller };
  member!: Caller;
  /** One long-lived record per kind per tenant (reads, isolation); write attacks make their own. */
  records!: { a: Record<string, RecordIds>; b: Record<string, RecordIds> };
  private readonly tokens = new Map<string, Promise<string>>();
  private readonly positions = new Map<string, string>();
  /** Every label id of a kind per tenant (`<tenant>|<order path>`), as an order endpoint needs them all. */
  readonly labelOrder = new Map<string, string[]>();

  /** Reads the labels an order endpoint (`…/orders`) orders, in their current order. */
  async refreshLabelOrder(caller: Caller, e: EndpointContract): Promise<void> {
    const list = registry.find((x) => x.served && x.method === 'GET' && `${x.path}/orders` === e.path);
    if (!list) throw new Error(`no list beside ${e.id} to read the labels from`);
    const res = await this.call(caller, list);
    const rows = (Array.isArray(res.json) ? res.json : (res.json?.data ?? [])) as { id: string }[];
    this.labelOrder.set(
      `${caller.tenant.id}|${e.path}`,
      rows.map((l) => l.id),
    );
  }

  async start(): Promise<void> {
    this.system = await startSuiteSystem();
    const { a, b, limited } = this.system.tenants;
    this.owner = {
      a: { tenant: a, email: a.ownerEmail },
      b: { tenant: b, email: b.ownerEmail },
      limited: { tenant: limited, email: limited.ownerEmail },
    };
    const created = await this.call(this.owner.a, 'accounts.createAccount', {
      body: { username: '一般 職員', email: `member@${a.slug}.example`, password: 'member-pass-2026', role: 'member' },
    });
    if (created.status !== 201) throw new Error(`member account: ${created.status} ${created.text}`);
    this.member = { tenant: a, email: `member@${a.slug}.example` };
    this.records = { a: {}, b: {} };
    for (const kind of Object.keys(fixtures)) {
      this.records.a[kind] = await this.create(this.owner.a, kind);
      this.records.b[kind] = await this.create(this.owner.b, kind);
    }
    // Two more labels of each kind: a new order then differs from the current one and from the one
    // before (the concurrency attack needs orders that change something). Long-lived: only fresh
    // records are ever deleted.
    for (const kind of ['medical_institution_labels', 'communication_labels'])
      for (let i = 0; i < 2; i++) await this.create(this.owner.a, kind);
    // Two phases (the tenant's setting): an institution's phase then has values to change between.
    const phases = await this.call(this.owner.a, 'referenceData.replacePhaseMasters', {
      body: { phase_masters: [{ name: '初回訪問' }, { name: '定期訪問' }] },
    });
    if (phases.status !== 200) throw new Error(`phase masters: ${phases.status} ${phases.text}`);
  }

  /**
   * At least two phases for the caller's tenant, kept by id: an institution's phase then has values to
   * change between. Another attack may have replaced the list with one or none (a valid body of its own).
   * Only for attacks that write anyway (the race), never while the suite checks that nothing was written.
   */
  async ensurePhases(caller: Caller): Promise<void> {
    const res = await this.call(caller, 'referenceData.listPhaseMasters');
    const phases = (res.json ?? []) as { id: string; name: string }[];
    if (phases.length >= 2) return;
    const names = new Set(phases.map((p) => p.name));
    const added = ['初回訪問', '定期訪問', '紹介実績あり']
      .filter((name) => !names.has(name))
      .slice(0, 2 - phases.length);
    const owner = Object.values(this.owner).find((o) => o.tenant === caller.tenant) ?? this.owner.a;
    const replaced = await this.call(owner, 'referenceData.replacePhaseMasters', {
      body: { phase_masters: [...phases.map(({ id, name }) => ({ id, name })), ...added.map((name) => ({ name }))] },
    });
    if (replaced.status !== 200) throw new Error(`phase masters: ${replaced.status} ${replaced.text}`);
  }

  async stop(): Promise<void> {
    this.system?.client.close();
    await this.system?.stop();
  }

  token(caller: Caller, audience: Audience): Promise<string> {
    const key = `${caller.tenant.slug}|${caller.email}|${audience}`;
    let token = this.tokens.get(key);
    if (!token) {
      token = this.system.token(caller.tenant, audience, caller.email);
      this.tokens.set(key, token);
    }
    return token;
  }

  canaryOf(caller: Caller): string {
    return caller.tenant === this.system.tenants.b ? this.canary.b : this.canary.a;
  }

  fixtureApi(caller: Caller): FixtureApi {
    return {
      tenant: { slug: caller.tenant.slug, canary: this.canaryOf(caller) },
      institutionIds: this.system.institutionIds,
      call: (id, input) => this.call(caller, id, input),
      parkEmailSend: async (emailId) => {
        await this.system.store.append(
          streamId(emailDeliveryAggregate, emailId),
          [
            {
              id: randomUUID(),
              type: 'EmailSendParked',
              data: {
                email_id: emailId,
                reason: 'delivery_failed',
                error: 'reliability suite: parked as the worker would',
                parked_at: new Date().toISOString(),
              },
              metadata: {
                tenant_id: caller.tenant.id,
                account_id: null,
                correlation_id: emailId,
                causation_id: null,
                schema_version: 1,
              },
            },
          ],
          { expectedRevision: 'any' },
        );
      },
    };
  }

  /** A fresh record of a kind (and its parents) for the caller's tenant. */
  async create(caller: Caller, kind: string): Promise<RecordIds> {
    const fixture = fixtures[kind];
    if (!fixture) throw new Error(`no fixture for the resource kind "${kind}"`);
    return fixture.create(this.fixtureApi(caller));
  }

  /** Path params of an endpoint filled from one record of its innermost kind. */
  paramsFor(e: EndpointContract, ids: RecordIds): Record<string, string> {
    return paramsFrom(e.path, ids);
  }

  /** A fresh record when the endpoint deletes or changes it, else the tenant's long-lived one. */
  async recordFor(e: EndpointContract, caller: Caller, fresh = e.method === 'DELETE'): Promise<RecordIds> {
    const kind = innermostKind(e.path);
    if (!kind) return {};
    const special = endpointFixtures[e.id];
    if (fresh && special) return special.create(this.fixtureApi(caller));
    const own = caller.tenant === this.system.tenants.b ? this.records.b : this.records.a;
    if (fresh || !own[kind]) return this.create(caller, kind);
    return own[kind]!;
  }

  url(e: EndpointContract, input: CallInput): string {
    const path = input.rawParams
      ? e.path.replace(/\{([a-z_]+)\}/g, (_, name: string) => input.params?.[name] ?? '')
      : fillPath(e.path, input.params ?? {});
    const qs = input.rawQuery ?? queryString(input.query);
    return `/api${path}${qs ? `?${qs}` : ''}`;
  }

  async call(caller: Caller, id: string | EndpointContract, input: CallInput = {}): Promise<SuiteResponse> {
    const contract = typeof id === 'string' ? registry.find((x) => x.id === id) : id;
    if (!contract) throw new Error(`no endpoint ${String(id)} in the registry`);
    const token = input.token === undefined ? await this.token(caller, audienceOf[contract.service]) : input.token;
    const headers: Record<string, string> = { ...(token !== null ? { authorization: `Bearer ${token}` } : {}) };
    const position = this.positions.get(caller.tenant.id);
    if (contract.service === 'query' && position) headers[minPositionHeader] = position;
    let body: string | Buffer | undefined;
    if (input.rawBody !== undefined) body = input.rawBody;
    else if (input.body !== undefined) {
      body = JSON.stringify(input.body);
      headers['content-type'] = 'application/json';
    } else if (contract.method !== 'GET' && contract.method !== 'DELETE' && contract.body) {
      body = '{}';
      headers['content-type'] = 'application/json';
    }
    const res = await this.system.client.request({
      method: contract.method,
      path: this.url(contract, input),
      headers: { ...headers, ...input.headers },
      ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}),
      ...(body !== undefined ? { body } : {}),
    });
    const written = res.headers[positionHeader];
    if (typeof written === 'string' && res.status < 300) this.remember(caller.tenant.id, written);
    return res;
  }

  private remember(tenantId: string, position: string): void {
    // Positions are opaque to the client; the latest answer is the furthest one.
    this.positions.set(tenantId, position);
  }

  /** Valid params, query and body for an endpoint, generated from its schemas. */
  validInputs(e: EndpointContract, count: number, seed: number): { query: any; body: any }[] {
    const q = e.query ? fc.sample(validArbitrary(e.query), { numRuns: count, seed }) : [];
    const b = e.body ? fc.sample(validArbitrary(e.body), { numRuns: count, seed: seed + 1 }) : [];
    return Array.from({ length: count }, (_, i) => ({
      query: e.query ? q[i] : undefined,
      body: e.body ? b[i] : undefined,
    }));
  }

  /**
   * Ids in a generated body that name the tenant's records (`tag_ids`, `label_id` …, see
   * `bodyRefs`) replaced by real ones: random uuids there would only ever test the 422 path.
   */
  withOwnRefs(body: unknown, caller: Caller, e?: EndpointContract, sample = 0): unknown {
    const order = e && this.labelOrder.get(`${caller.tenant.id}|${e.path}`);
    if (order && Array.isArray((body as { label_ids?: unknown })?.label_ids)) {
      // A new order must name every label exactly once; each sample rotates the current order by
      // another step, so that orders differ from it and from each other.
      const step = order.length > 1 ? 1 + (sample % (order.length - 1)) : 0;
      return { ...(body as object), label_ids: [...order.slice(step), ...order.slice(0, step)] };
    }
    const own = caller.tenant === this.system.tenants.b ? this.records.b : this.records.a;
    const swap = (v: unknown, key?: string): unknown => {
      const kind = key ? bodyRefs[key] : undefined;
      if (kind && own[kind]?.[kind]) {
        const id = own[kind]![kind]!;
        if (typeof v === 'string') return id;
        if (Array.isArray(v)) return v.length ? [id] : v;
      }
      if (Array.isArray(v)) return v.map((x) => swap(x));
      if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, swap(x, k)]));
      return v;
    };
    return swap(body);
  }

  /**
   * A generated body made acceptable where acceptance depends on what the tenant has now (other cases
   * create and delete such things at any time, so it is read at each call): values for the required
   * labels of a communication's type, an existing phase, mapping profiles that map the required
   * columns. Reads only: it runs inside blocks where nothing may be written.
   */
  async completeBody(e: EndpointContract, body: unknown, caller: Caller, sample = 0): Promise<unknown> {
    if (!isObject(body)) return body;
    const props = e.body ? Object.keys(inputJsonSchema(e.body).properties ?? {}) : [];
    let out: Record<string, unknown> = { ...body };
    if (props.includes('communication_type') && props.includes('label_values')) {
      const facts = await communicationFacts(this.fixtureApi(caller));
      const answerable = answerableType(facts, String(out.communication_type ?? 'visit'));
      if (answerable) out = { ...out, communication_type: answerable.type, label_values: answerable.label_values };
      // Staff, task staff and attachments named by random ids are only ever refused; the caller acts.
      if ('user_id' in out) out.user_id = null;
      if ('attachment_ids' in out) out.attachment_ids = [];
      if (Array.isArray(out.tasks)) out.tasks = out.tasks.map((t) => (isObject(t) ? { ...t, staff_id: null } : t));
    }
    if (typeof out.stringified === 'string') {
      // An email's fields as JSON text: doctors named by random ids are only ever refused.
      const fields: unknown = JSON.parse(out.stringified);
      if (isObject(fields) && Array.isArray(fields.doctor_ids))
        out.stringified = JSON.stringify({ ...fields, doctor_ids: [] });
    }
    if (typeof out.phase_master_id === 'string') {
      const res = await this.call(caller, 'referenceData.listPhaseMasters');
      const ids = ((res.json ?? []) as { id: string }[]).map((p) => p.id);
      out.phase_master_id = ids.length ? ids[sample % ids.length]! : null;
    }
    if (Array.isArray(out.display_items) && isObject(out.aggregation_settings)) {
      // A report definition: random item keys are only ever refused, so one attribute item of its kind.
      const kind = ReportKind.parse(e.path.split('/')[1]);
      const keys = staticReportItems[kind].filter((i) => !i.periodic).map((i) => i.key);
      out.display_items = [
        { item_key: keys[sample % keys.length]!, label: null, aggregation_method: null, formula: null },
      ];
      out.filter_conditions = [];
      out.sort_conditions = [];
      out.aggregation_settings = {
        ...out.aggregation_settings,
        period: { from: '2025-04-01', to: '2026-03-31' },
        comparison_period: null,
      };
    }
    if (props.includes('contents') && props.includes('filter_department')) {
      // A dashboard names the tenant's own departments, labels and reports: an empty one is valid.
      out = { ...out, filter_department: null, medical_institution_label_id: null, contents: [] };
    }
    // Alert settings notify the tenant's accounts, which random ids never are.
    if (Array.isArray(out.notify_user_ids)) out.notify_user_ids = [];
    // Nor is a random id one of the tenant's column mappings (an upload naming one is a 422).
    if (typeof out.mapping_profile_id === 'string') delete out.mapping_profile_id;
    if (Array.isArray(out.profiles)) {
      out.profiles = out.profiles.map((profile) => {
        if (!isObject(profile)) return profile;
        const columns = listColumns[profile.import_type as MappedListType];
        if (!columns) return profile;
        // One header per required column group, named after the sample so that each body differs.
        return {
          ...profile,
          mapping: Object.fromEntries(columns.required.map((group) => [group[0], `${group[0]} ${sample}`])),
        };
      });
    }
    return out;
  }

  state(tenant: 'a' | 'b'): Promise<TenantState> {
    return settledState(this.system.db, this.system.tenants[tenant].id);
  }

  /** Param kinds of served endpoints that have no fixture: the run fails on each. */
  static missingFixtures(): string[] {
    return served.flatMap((e) =>
      pathParamKinds(e.path)
        .filter((p) => !fixtures[p.kind])
        .map((p) => `${e.id}: {${p.name}} names "${p.kind}"`),
    );
  }
}
