/**
 * Every environment variable Renkei's processes read, with the deployments that read it. README's
 * configuration table documents the same list; deploy.test.ts checks it against the sources (what
 * each service really reads), against README, and against docker-compose.yml (each variable set for
 * each service that reads it).
 */
export type Deployment = 'gateway' | 'identity' | 'command' | 'query' | 'worker' | 'embedded';

export interface EnvVar {
  readonly name: string;
  readonly readBy: readonly Deployment[];
  readonly default: string | null;
  readonly description: string;
  /** Read only by developer tooling (tests, `pnpm start`): never set in production. */
  readonly devOnly?: boolean;
}

const all = ['gateway', 'identity', 'command', 'query', 'worker', 'embedded'] as const;

export const envVars: readonly EnvVar[] = [
  {
    name: 'DATABASE_URL',
    readBy: ['identity', 'command', 'query', 'worker', 'embedded'],
    default: null,
    description: 'PostgreSQL connection string; without it the embedded PGlite database in RENKEI_DATA_DIR',
  },
  {
    name: 'EVENTSTORE_URL',
    readBy: ['identity', 'command', 'query', 'worker', 'embedded'],
    default: null,
    description: 'EventStoreDB connection string; without it the Postgres event store (es schema)',
  },
  {
    name: 'KAFKA_BROKERS',
    readBy: ['worker', 'embedded'],
    default: null,
    description: 'Kafka brokers (host:port, comma-separated) for the integration-event relay; unset = relay off',
  },
  {
    name: 'RENKEI_DATA_DIR',
    readBy: ['gateway', 'identity', 'command', 'query', 'worker', 'embedded'],
    default: '.data',
    description: 'Embedded database, certificates, caught mails, admin secret, import files',
  },
  {
    name: 'RENKEI_LABEL_VALUE_IMPORT_MAX_BYTES',
    readBy: ['command', 'embedded'],
    default: '52428800',
    description: 'Largest label-value import file accepted (bytes); a larger upload answers 413 and nothing is kept',
  },
  {
    name: 'PORT',
    readBy: ['gateway', 'identity', 'command', 'query', 'embedded'],
    default: '3000 (gateway)',
    description: 'Listening port',
  },
  { name: 'HOST', readBy: ['gateway', 'identity', 'embedded'], default: '0.0.0.0', description: 'Listening address' },
  { name: 'LOG_LEVEL', readBy: all, default: 'info', description: 'pino log level' },
  {
    name: 'PUBLIC_ORIGIN',
    readBy: ['identity', 'command', 'worker', 'embedded'],
    default: 'https://localhost:<PORT>',
    description: 'Public https origin; issuer = <PUBLIC_ORIGIN>/oidc',
  },
  {
    name: 'IDENTITY_URL',
    readBy: ['gateway', 'embedded'],
    default: null,
    description: 'Internal base URL of identity',
  },
  { name: 'COMMAND_URL', readBy: ['gateway', 'embedded'], default: null, description: 'Internal base URL of command' },
  { name: 'QUERY_URL', readBy: ['gateway', 'embedded'], default: null, description: 'Internal base URL of query' },
  { name: 'WEB_DIST', readBy: ['gateway', 'embedded'], default: 'web/dist', description: 'Web build served at /app' },
  {
    name: 'TLS_KEY_FILE',
    readBy: ['gateway', 'embedded'],
    default: null,
    description: 'PEM key of the https origin (else a generated local certificate)',
  },
  {
    name: 'TLS_CERT_FILE',
    readBy: ['gateway', 'embedded'],
    default: null,
    description: 'PEM certificate of the https origin',
  },
  {
    name: 'TLS_EXTRA_HOSTS',
    readBy: ['gateway', 'embedded'],
    default: null,
    description: 'Extra host names/IPs for the generated certificate',
    devOnly: true,
  },
  {
    name: 'TRUST_PROXY',
    readBy: ['gateway', 'embedded'],
    default: 'false',
    description: 'Trust X-Forwarded-* from an ingress in front',
  },
  {
    name: 'OIDC_ISSUER',
    readBy: ['command', 'query', 'embedded'],
    default: '<PUBLIC_ORIGIN>/oidc',
    description: 'Accepted token issuer',
  },
  {
    name: 'OIDC_JWKS_URL',
    readBy: ['command', 'query', 'embedded'],
    default: '<OIDC_ISSUER>/jwks',
    description: 'Key set for token signatures',
  },
  {
    name: 'AUDIENCE_MAIN',
    readBy: ['identity', 'embedded'],
    default: 'https://api.renkei.local/main',
    description: 'Audience of the main (identity) API',
  },
  {
    name: 'AUDIENCE_QUERY',
    readBy: ['identity', 'query', 'embedded'],
    default: 'https://api.renkei.local/query',
    description: 'Audience of the query API',
  },
  {
    name: 'AUDIENCE_COMMAND',
    readBy: ['identity', 'command', 'embedded'],
    default: 'https://api.renkei.local/command',
    description: 'Audience of the command API',
  },
  {
    name: 'OIDC_CLIENT_ID',
    readBy: ['identity', 'embedded'],
    default: 'renkei-web',
    description: 'SPA client id at the built-in provider',
  },
  {
    name: 'OIDC_POLICY',
    readBy: ['identity', 'embedded'],
    default: 'B2C_1_signin',
    description: 'Sign-in policy name (tfp claim)',
  },
  {
    name: 'OIDC_EXTERNAL_AUTHORITY',
    readBy: ['identity', 'embedded'],
    default: null,
    description: 'Azure AD B2C / Entra authority; the built-in provider then mints no tokens',
  },
  {
    name: 'ACCESS_TOKEN_TTL_SECONDS',
    readBy: ['identity', 'embedded'],
    default: '3600',
    description: 'Access-token lifetime',
  },
  {
    name: 'SMTP_URL',
    readBy: ['identity', 'worker', 'embedded'],
    default: null,
    description: 'Real SMTP server; else the in-process catcher',
  },
  {
    name: 'SMTP_PORT',
    readBy: ['identity', 'worker', 'embedded'],
    default: '2525',
    description: 'Port of the in-process SMTP catcher',
  },
  {
    name: 'RENKEI_EMAIL_RATE_PER_MINUTE',
    readBy: ['worker', 'embedded'],
    default: '600',
    description: 'Campaign mails sent per minute at most',
  },
  {
    name: 'RENKEI_EMAIL_COMMIT_GROUP',
    readBy: ['worker', 'embedded'],
    default: '10',
    description: 'Mails of a campaign whose outcomes are recorded together (a crash may resend at most this many)',
  },
  {
    name: 'RENKEI_EMAIL_TRACKING_SECRET',
    readBy: ['command', 'worker', 'embedded'],
    default: 'a key kept in RENKEI_DATA_DIR',
    description: 'Key of the signed open, click and unsubscribe links of campaign mails',
  },
  {
    name: 'RENKEI_FILE_URL_SECRET',
    readBy: ['command', 'query', 'worker', 'embedded'],
    default: 'a key kept in RENKEI_DATA_DIR',
    description: 'Key of the short-lived signed links of uploaded files (attachments)',
  },
  {
    name: 'RENKEI_EMAIL_BOUNCE_ADDRESS',
    readBy: ['worker', 'embedded'],
    default: 'bounces@localhost with the catcher; none with SMTP_URL',
    description:
      'Bounce mailbox of campaign mails (VERP return paths bounces+<token>@…, read from RENKEI_DATA_DIR/mail/bounces)',
  },
  {
    name: 'MAIL_FROM',
    readBy: ['identity', 'worker', 'embedded'],
    default: 'Renkei <no-reply@renkei.local>',
    description: 'Sender of mails',
  },
  {
    name: 'MIN_POSITION_TIMEOUT_MS',
    readBy: ['identity', 'command', 'query', 'embedded'],
    default: '5000',
    description: 'Bounded wait of X-Min-Position (read by the service kit)',
  },
  { name: 'ADMIN_PORT', readBy: ['embedded'], default: 'a free port', description: 'Ops admin endpoint on 127.0.0.1' },
  {
    name: 'RENKEI_DEMO_SEED',
    readBy: ['embedded'],
    default: 'true',
    description: 'false skips the demo data on first start',
  },
  {
    name: 'RENKEI_SKIP_WEB_BUILD',
    readBy: [],
    default: 'false',
    description: 'pnpm start does not build the web app when missing or older than its sources',
    devOnly: true,
  },
  {
    name: 'RELIABILITY_LONG',
    readBy: ['embedded'],
    default: null,
    description: 'Tests: the reliability suite sends many more generated inputs (set by pnpm test:reliability --long)',
    devOnly: true,
  },
  {
    name: 'RELIABILITY_LOG_LEVEL',
    readBy: ['embedded'],
    default: 'silent',
    description: 'Tests: log level of the system the reliability suite attacks',
    devOnly: true,
  },
  {
    name: 'RELIABILITY_POOL_MAX',
    readBy: ['embedded'],
    default: null,
    description:
      'Tests: size of the one database pool of the system the reliability suite attacks, to run its cases under contention',
    devOnly: true,
  },
  {
    name: 'RELIABILITY_SEED',
    readBy: [],
    default: '20260401',
    description: "Tests: seed of the reliability suite's generated inputs (a run prints its seed to repeat it)",
    devOnly: true,
  },
  {
    name: 'KILL_TEST_KILLS',
    readBy: [],
    default: '20',
    description: 'Tests: kills of each phase of the worker kill -9 test',
    devOnly: true,
  },
  {
    name: 'TEST_DATABASE_ADMIN_URL',
    readBy: [],
    default: 'postgres://postgres@127.0.0.1:5432/postgres',
    description: 'Tests: server for per-file test databases',
    devOnly: true,
  },
];
