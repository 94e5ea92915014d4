// `pnpm ops …`: operations on a Renkei install, whether it is running or not.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadEmbeddedConfig } from '../config.ts';
import { callAdmin, findRunningAdmin } from './admin-client.ts';
import { describeError } from './operation-result.ts';
import type { DatabaseOperation } from './operations.ts';

// The services are imported only by the commands that need them: a command relayed to the running
// process should not pay for loading the whole system first.

const usage = `使い方:
  pnpm ops tenant add <slug> --name <名前> --owner <email> --password <パスワード> [--plan <plan>]
  pnpm ops tenant update <slug> [--plan <plan>] [--enabled-phase true|false] [--max-tag-count N|none]
                         [--group-institutions <id,id,…>] [--features-off <key,key,…>]
  pnpm ops token --tenant <slug> --email <email> --audience main|query|command
  pnpm ops projections status
  pnpm ops projections rebuild <name>
  pnpm ops keys rotate
  pnpm ops contracts
  pnpm ops mail
  pnpm ops institutions import <file>`;

class UsageError extends Error {}

function parse(argv: string[]): { operation: DatabaseOperation | 'contracts' | 'mail'; args: Record<string, unknown> } {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      name: { type: 'string' },
      owner: { type: 'string' },
      'owner-name': { type: 'string' },
      password: { type: 'string' },
      plan: { type: 'string' },
      tenant: { type: 'string' },
      email: { type: 'string' },
      audience: { type: 'string' },
      'enabled-phase': { type: 'string' },
      'max-tag-count': { type: 'string' },
      'group-institutions': { type: 'string' },
      'features-off': { type: 'string' },
    },
  });
  const [group, action, subject] = positionals;
  const need = (value: string | undefined, what: string): string => {
    if (!value) throw new UsageError(`${what} を指定してください。`);
    return value;
  };
  switch (`${group ?? ''} ${action ?? ''}`.trim()) {
    case 'tenant add':
      return {
        operation: 'tenant.add',
        args: {
          slug: need(subject, '<slug>'),
          name: need(values.name, '--name'),
          owner: need(values.owner, '--owner'),
          password: need(values.password, '--password'),
          ...(values.plan ? { plan: values.plan } : {}),
          ...(values['owner-name'] ? { ownerName: values['owner-name'] } : {}),
        },
      };
    case 'tenant update':
      return { operation: 'tenant.update', args: { slug: need(subject, '<slug>'), ...tenantChanges(values) } };
    case 'token':
      return {
        operation: 'token',
        args: {
          tenant: need(values.tenant, '--tenant'),
          email: need(values.email, '--email'),
          audience: need(values.audience, '--audience'),
        },
      };
    case 'keys rotate':
      return { operation: 'keys.rotate', args: {} };
    case 'projections status':
      return { operation: 'projections.status', args: {} };
    case 'projections rebuild':
      return { operation: 'projections.rebuild', args: { name: need(subject, '<name>') } };
    case 'institutions import':
      return { operation: 'institutions.import', args: { file: path.resolve(need(subject, '<file>')) } };
    case 'contracts':
      return { operation: 'contracts', args: {} };
    case 'mail':
      return { operation: 'mail', args: {} };
    default:
      throw new UsageError(group ? `不明なコマンドです: ${positionals.join(' ')}` : 'コマンドを指定してください。');
  }
}

/** The settings `tenant update` changes; a list given empty (`--features-off ''`) clears it. */
function tenantChanges(values: Record<string, string | boolean | undefined>): Record<string, unknown> {
  const text = (name: string) => (typeof values[name] === 'string' ? (values[name] as string) : undefined);
  const list = (value: string) =>
    value
      .split(',')
      .map((item) => item.trim())
      .filter(Boolean);
  const changes: Record<string, unknown> = {};
  const plan = text('plan');
  if (plan !== undefined) changes.plan = plan;
  const phase = text('enabled-phase');
  if (phase !== undefined) {
    if (phase !== 'true' && phase !== 'false') {
      throw new UsageError('--enabled-phase には true か false を指定してください。');
    }
    changes.enabledPhase = phase === 'true';
  }
  const maxTags = text('max-tag-count');
  if (maxTags !== undefined) {
    if (maxTags !== 'none' && !/^\d+$/.test(maxTags)) {
      throw new UsageError('--max-tag-count には 0 以上の整数か none を指定してください。');
    }
    changes.maxTagCount = maxTags === 'none' ? null : Number(maxTags);
  }
  const groups = text('group-institutions');
  if (groups !== undefined) changes.groupInstitutions = list(groups);
  const off = text('features-off');
  if (off !== undefined) changes.featuresOff = list(off);
  if (Object.keys(changes).length === 0) throw new UsageError('変更する設定を指定してください。');
  return changes;
}

async function run(argv: string[]): Promise<string> {
  const { operation, args } = parse(argv);
  const config = loadEmbeddedConfig(process.env);
  if (operation === 'contracts') return (await import('@renkei/contracts')).formatContractsReport();
  if (operation === 'mail') {
    const { listMails } = await import('@renkei/identity');
    const mails = await listMails(config.dataDir);
    if (mails.length === 0) return 'メールはありません。';
    return mails
      .map(
        (m) =>
          `--- ${m.date ?? ''}\nFrom: ${m.from}\nTo: ${m.to}\nSubject: ${m.subject}\n` +
          m.attachments.map((a) => `Attachment: ${a.filename ?? ''} (${a.contentType}, ${a.size} bytes)\n`).join('') +
          `\n${m.text.trim()}\n`,
      )
      .join('\n');
  }
  // The embedded database has one owner: when a live process holds it, that process does the work.
  const running = config.databaseUrl ? undefined : findRunningAdmin(config.dataDir);
  if (running) {
    const result = await callAdmin(running, operation, args);
    if (!result.ok) throw new Error(result.error);
    return result.output;
  }
  const [{ openOpsContext }, { databaseOperations }] = await Promise.all([
    import('../system.ts'),
    import('./operations.ts'),
  ]);
  const ctx = await openOpsContext(config);
  try {
    return await databaseOperations[operation](ctx, args);
  } finally {
    await ctx.close();
  }
}

try {
  process.stdout.write(`${await run(process.argv.slice(2))}\n`);
} catch (error) {
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS'))
    process.stderr.write(`${(error as Error).message}\n\n${usage}\n`);
  else if (error instanceof UsageError) process.stderr.write(`${error.message}\n\n${usage}\n`);
  else process.stderr.write(`エラー: ${describeError(error)}\n`);
  process.exitCode = 1;
}
