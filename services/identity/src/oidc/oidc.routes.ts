import type { IncomingMessage } from 'node:http';
import { hash, verify } from '@node-rs/argon2';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { IdentityDeps } from '../deps.ts';
import type { Mailer } from '../mail/mailer.ts';
import { recordLogin } from '../accounts/account.commands.ts';
import { findAccountById, findAccountByLogin } from '../accounts/account.queries.ts';
import { isResetTokenValid, requestPasswordReset, resetPassword } from '../accounts/password-reset.ts';
import { lockedOutMessage, signInPage, wrongCredentialsMessage } from '../pages/sign-in.page.ts';
import { clearSignInFailures, isLockedOut, lockoutKey, recordSignInFailure } from './sign-in-lockout.ts';
import { confirmationPath, invitationTtlDays } from '../accounts/account-invitation.ts';
import {
  confirmationDonePage,
  confirmationPage,
  invalidConfirmationLinkPage,
  forgotPasswordPage,
  forgotPasswordSentPage,
  invalidResetLinkPage,
  resetPasswordDonePage,
  resetPasswordPage,
} from '../pages/password.page.ts';
import { errorPage } from '../pages/provider.pages.ts';
import { oidcMountPath } from './provider.ts';
import { identityDb } from '../db/identity.tables.ts';
import {
  consumeSignInTicket,
  issueSignInTicket,
  signInTicketClearCookie,
  signInTicketFrom,
  signInTicketSetCookie,
} from './sign-in-ticket.ts';

type Form = Record<string, string>;

const html = (reply: FastifyReply, body: string, status = 200) =>
  reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(body);

// An unknown login costs as much time as a wrong password, so timing does not reveal which accounts exist.
let dummyHash: Promise<string> | undefined;
const timingDummy = () => (dummyHash ??= hash('renkei-timing-dummy'));

/**
 * `/oidc/*`: the provider itself (handed the raw request) plus the pages it delegates to us — the
 * sign-in interaction and the password reset flow.
 */
export async function registerOidcRoutes(
  app: FastifyInstance,
  deps: IdentityDeps & { provider: () => Provider; mailer: Mailer },
): Promise<void> {
  const { config } = deps;
  const appUrl = `${config.publicOrigin}/app/`;
  const forgotUrl = `${oidcMountPath}/password/forgot`;
  // Sec-Fetch-Site where the browser sends it; Origin otherwise (pages here send no referrer, so a
  // browser may send `Origin: null` on its own form: that one falls back to signing in by hand).
  const postedFromOwnPage = (request: FastifyRequest) => {
    const site = request.headers['sec-fetch-site'];
    if (site !== undefined) return site === 'same-origin';
    return request.headers.origin === config.publicOrigin;
  };
  // An unknown or expired interaction cookie: the sign-in has to start again from the app.
  const interactionExpired = (reply: FastifyReply) =>
    html(reply, errorPage({ appUrl, detail: 'ログインの有効期限が切れました。もう一度お試しください。' }), 400);
  // The provider is rebuilt when signing keys change; its request handler follows it.
  let handler: { provider: Provider; callback: ReturnType<Provider['callback']> } | undefined;
  const callback = () => {
    const provider = deps.provider();
    if (handler?.provider !== provider) handler = { provider, callback: provider.callback() };
    return handler.callback;
  };

  // The provider parses its own bodies: nothing in this scope may consume the request stream.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request: FastifyRequest, _payload: IncomingMessage, done) => done(null));
    const handOver = (request: FastifyRequest, reply: FastifyReply) => {
      // oidc-provider answers a CORS preflight before it knows the client, echoing any Origin; only
      // the public origin (the SPA's) may call the provider from a browser (clientBasedCORS too).
      const origin = request.headers.origin;
      if (request.method === 'OPTIONS' && origin !== undefined && origin !== config.publicOrigin) {
        return reply.code(204).header('vary', 'Origin').send();
      }
      reply.hijack();
      const raw = request.raw as IncomingMessage & { originalUrl?: string };
      raw.originalUrl = raw.url;
      raw.url = raw.url!.slice(oidcMountPath.length) || '/';
      void callback()(raw, reply.raw);
    };
    scope.all(oidcMountPath, handOver);
    scope.all(`${oidcMountPath}/*`, handOver);
  });

  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 16 * 1024 },
      (_req, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );

    scope.get<{ Params: { uid: string } }>(`${oidcMountPath}/interaction/:uid`, async (request, reply) => {
      const provider = deps.provider();
      let details;
      try {
        details = await provider.interactionDetails(request.raw, reply.raw);
      } catch {
        return interactionExpired(reply);
      }
      if (details.prompt.name === 'login') {
        // Just signed up in this browser: the ticket stands for the password typed a moment ago. Only a
        // login prompt takes it; whatever it turns out to be, it is spent and its cookie goes.
        const ticket = signInTicketFrom(request.headers.cookie);
        if (ticket !== undefined) {
          const db = identityDb(deps.db);
          const accountId = await consumeSignInTicket(db, ticket);
          const account = accountId ? await findAccountById(db, accountId) : undefined;
          if (account?.active) {
            await recordLogin(deps, account.id);
            reply.hijack();
            reply.raw.setHeader('set-cookie', signInTicketClearCookie);
            await provider.interactionFinished(
              request.raw,
              reply.raw,
              { login: { accountId: account.id, remember: true } },
              { mergeWithLastSubmission: false },
            );
            return;
          }
          reply.header('set-cookie', signInTicketClearCookie);
        }
        return html(reply, signInPage({ action: `${oidcMountPath}/interaction/${details.uid}/login`, forgotUrl }));
      }
      // Consent: the only client is Renkei's own SPA, so what it asks for is approved without a screen.
      const grant = details.grantId
        ? await provider.Grant.find(details.grantId)
        : new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string });
      if (!grant) return html(reply, errorPage({ appUrl }), 400);
      const missing = details.prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
        grant.addResourceScope(resource, scopes.join(' '));
      }
      const grantId = await grant.save();
      reply.hijack();
      await provider.interactionFinished(
        request.raw,
        reply.raw,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
    });

    scope.post<{ Params: { uid: string }; Body: Form }>(
      `${oidcMountPath}/interaction/:uid/login`,
      async (request, reply) => {
        const provider = deps.provider();
        let details;
        try {
          details = await provider.interactionDetails(request.raw, reply.raw);
        } catch {
          return interactionExpired(reply);
        }
        const login = String(request.body?.login ?? '').trim();
        const password = String(request.body?.password ?? '');
        const db = identityDb(deps.db);
        const account = await findAccountByLogin(db, login);
        const lockKey = lockoutKey(account, login);
        const locked = await isLockedOut(db, lockKey);
        // A locked sign-in costs the same hash as any other, and its password is never checked.
        const hashed = (!locked && account?.password_hash) || (await timingDummy());
        const passwordOk = (await verify(hashed, password).catch(() => false)) && !locked;
        const refuse = (error: string) =>
          html(
            reply,
            signInPage({ action: `${oidcMountPath}/interaction/${details.uid}/login`, forgotUrl, login, error }),
          );
        if (locked) return refuse(lockedOutMessage);
        if (!account || !account.active || !passwordOk) {
          const failure = await recordSignInFailure(db, lockKey, config.signInLockout);
          return refuse(failure.locked ? lockedOutMessage : wrongCredentialsMessage);
        }
        await clearSignInFailures(db, account.id);
        await recordLogin(deps, account.id);
        reply.hijack();
        await provider.interactionFinished(
          request.raw,
          reply.raw,
          { login: { accountId: account.id, remember: true } },
          { mergeWithLastSubmission: false },
        );
      },
    );

    scope.get(forgotUrl, async (_request, reply) => html(reply, forgotPasswordPage({ action: forgotUrl, appUrl })));

    scope.post<{ Body: Form }>(forgotUrl, async (request, reply) => {
      const email = String(request.body?.email ?? '').trim();
      if (!email) {
        return html(
          reply,
          forgotPasswordPage({ action: forgotUrl, appUrl, error: 'メールアドレスを入力してください。' }),
          422,
        );
      }
      await requestPasswordReset(deps, deps.mailer, email);
      return html(reply, forgotPasswordSentPage({ appUrl }));
    });

    const resetUrlPath = `${oidcMountPath}/password/reset`;
    scope.get<{ Querystring: { token?: string } }>(resetUrlPath, async (request, reply) => {
      const token = String(request.query.token ?? '');
      if (!(await isResetTokenValid(deps, token))) return html(reply, invalidResetLinkPage({ forgotUrl }), 400);
      return html(reply, resetPasswordPage({ action: resetUrlPath, token }));
    });

    scope.post<{ Body: Form }>(resetUrlPath, async (request, reply) => {
      const token = String(request.body?.token ?? '');
      const result = await resetPassword(deps, {
        token,
        password: String(request.body?.password ?? ''),
        passwordConfirmation: String(request.body?.password_confirmation ?? ''),
      });
      if (result.ok) return html(reply, resetPasswordDonePage({ appUrl }));
      if (result.invalidToken) return html(reply, invalidResetLinkPage({ forgotUrl }), 400);
      return html(reply, resetPasswordPage({ action: resetUrlPath, token, error: result.errors[0]!.message }), 422);
    });

    const invalidConfirmation = (reply: FastifyReply) =>
      html(reply, invalidConfirmationLinkPage({ ttlDays: invitationTtlDays, appUrl }), 400);
    scope.get<{ Querystring: { token?: string } }>(confirmationPath, async (request, reply) => {
      const token = String(request.query.token ?? '');
      if (!(await isResetTokenValid(deps, token, 'invitation'))) return invalidConfirmation(reply);
      return html(reply, confirmationPage({ action: confirmationPath, token }));
    });

    scope.post<{ Body: Form }>(confirmationPath, async (request, reply) => {
      const token = String(request.body?.token ?? '');
      const result = await resetPassword(
        deps,
        {
          token,
          password: String(request.body?.password ?? ''),
          passwordConfirmation: String(request.body?.password_confirmation ?? ''),
        },
        'invitation',
      );
      if (result.ok) {
        // A form posted from another site (someone else's sign-up link, submitted by a page the victim
        // visits) sets that password but signs nobody in: otherwise it would sign the victim into an
        // account the other person controls. Without the header either, the person signs in by hand.
        if (!postedFromOwnPage(request)) return html(reply, confirmationDonePage({ appUrl }));
        const ticket = await issueSignInTicket(identityDb(deps.db), result.accountId);
        // The SPA finds no session and starts its sign-in, which the ticket finishes (interaction GET).
        return reply
          .header('set-cookie', signInTicketSetCookie(ticket))
          .header('cache-control', 'no-store')
          .redirect(appUrl, 303);
      }
      if (result.invalidToken) return invalidConfirmation(reply);
      return html(reply, confirmationPage({ action: confirmationPath, token, error: result.errors[0]!.message }), 422);
    });
  });
}
