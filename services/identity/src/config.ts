import path from 'node:path';
import { defaultResources, defaultSignInPolicy, defaultSpaClientId } from '@renkei/contracts';
import type { Audience } from '@renkei/contracts';
import { defaultLockoutPolicy, type LockoutPolicy } from './oidc/sign-in-lockout.ts';
import { defaultSigningKeyPolicy, type SigningKeyPolicy } from './oidc/signing-keys.ts';

export interface IdentityConfig {
  /** The public https origin the browser sees (the gateway). The issuer is `<publicOrigin>/oidc`. */
  publicOrigin: string;
  /** Holds the local mail catcher's mails (`<dataDir>/mail`). */
  dataDir: string;
  /** Resource identifier (token audience) per API. */
  resources: Record<Audience, string>;
  spaClientId: string;
  signInPolicy: string;
  /** Set when an external provider (Azure AD B2C / Entra) issues the tokens; the built-in one then refuses to mint any. */
  externalAuthority: string | undefined;
  /** A real SMTP server (`smtp://user:pass@host:587`); without it mails go to the in-process catcher. */
  smtpUrl: string | undefined;
  /** Port of the in-process SMTP catcher on 127.0.0.1. */
  smtpCatcherPort: number;
  mailFrom: string;
  accessTokenTtlSeconds: number;
  /** Account lockout after repeated wrong passwords (docs/decisions.md). */
  signInLockout: LockoutPolicy;
  /** Signing-key rotation timing (docs/decisions.md). */
  signingKeys: SigningKeyPolicy;
}

export function issuerOf(config: Pick<IdentityConfig, 'publicOrigin'>): string {
  return `${config.publicOrigin.replace(/\/$/, '')}/oidc`;
}

export function loadIdentityConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<IdentityConfig> = {},
): IdentityConfig {
  return {
    publicOrigin: (env.PUBLIC_ORIGIN ?? 'https://localhost:3000').replace(/\/$/, ''),
    dataDir: path.resolve(env.RENKEI_DATA_DIR ?? '.data'),
    resources: {
      main: env.AUDIENCE_MAIN ?? defaultResources.main,
      query: env.AUDIENCE_QUERY ?? defaultResources.query,
      command: env.AUDIENCE_COMMAND ?? defaultResources.command,
    },
    spaClientId: env.OIDC_CLIENT_ID ?? defaultSpaClientId,
    signInPolicy: env.OIDC_POLICY ?? defaultSignInPolicy,
    externalAuthority: env.OIDC_EXTERNAL_AUTHORITY || undefined,
    smtpUrl: env.SMTP_URL || undefined,
    smtpCatcherPort: Number(env.SMTP_PORT ?? 2525),
    mailFrom: env.MAIL_FROM ?? 'Renkei <no-reply@renkei.local>',
    accessTokenTtlSeconds: Number(env.ACCESS_TOKEN_TTL_SECONDS ?? 3600),
    signInLockout: defaultLockoutPolicy,
    signingKeys: defaultSigningKeyPolicy,
    ...overrides,
  };
}
