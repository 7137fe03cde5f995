// The embedded identity provider's state and grants: sign-in sessions, authorization codes
// (PKCE S256), refresh tokens (hashed, rotated at each use, gone with their session), the token
// endpoint's grants (authorization_code, refresh_token, password, Keycloak-style token exchange)
// and the one password check every sign-in goes through, limited per username and per address.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IdentityClientSettings, IdentitySettings } from '../../config/index.ts';
import type { Store } from '../../store/database.ts';
import { SignInLimits, type LockEvent } from './sign-in-limits.ts';
import { signedPayload, signTokens, type SigningKey } from './signing.ts';
import { UserDirectory, type IdentityUser } from './users.ts';

export const tokenExchangeGrant = 'urn:ietf:params:oauth:grant-type:token-exchange';

/** An answer of the token endpoint: the tokens, or an RFC 6749 §5.2 error. */
export interface TokenAnswer {
  status: number;
  body: Record<string, unknown>;
  /** A 429's `Retry-After`: the seconds until a locked sign-in may try again. */
  retryAfterSeconds?: number;
}

/** Who asks the token endpoint, besides what the form says. */
export interface TokenRequestContext {
  /** The issuer of the tokens, `<origin>/realms/<realm>`. */
  issuer: string;
  /** The decoded HTTP Basic client credentials. */
  basic?: { id: string; secret: string };
  /** The gateway's own in-process call, whose client needs no secret. */
  trusted?: boolean;
  /** The client's address, whose failed passwords are limited (request.ip). */
  address?: string;
}

/** A password check: the user, a wrong name or password, or a sign-in locked for a while. */
export type PasswordCheck =
  | { outcome: 'signed-in'; user: IdentityUser }
  | { outcome: 'refused' }
  | { outcome: 'locked'; retryAfterSeconds: number };

export interface ProviderOptions {
  store: Store;
  settings: IdentitySettings;
  /** Given to administrators in `realm_access.roles` (ADMIN_ROLES). */
  adminRoles: string[];
  /** Named first in administrators' `entitlement` claim (ADMIN_GROUP). */
  adminGroup: string;
  /** The groups (teams, communities) a user is a member of, also named in `entitlement`. */
  groupsOf: (username: string) => Promise<string[]>;
  /** The gateway's own client (AUTH_CLIENT_ID, AUTH_CLIENT_SECRET): `/token`, `/oidc/*`. */
  gatewayClient: { id: string; secret?: string };
  emailDomain: string;
  /** The signing key, made on first use (an RSA key takes a while to make). */
  key: () => Promise<SigningKey>;
  now?: () => number;
  /** Told when failed passwords lock a username or an address. */
  onLock?: (event: LockEvent) => void;
}

export interface Client extends IdentityClientSettings {
  /** The gateway's own client: redirects only to `/oidc/callback` (and, at logout, `/docs`) of the provider's origin. */
  gateway?: boolean;
}

export interface Session {
  id: string;
  username: string;
  createdAt: number;
  expiresAt: number;
}

export interface AuthorizationRequest {
  clientId: string;
  redirectUri: string;
  scope: string;
  nonce?: string;
  codeChallenge?: string;
}

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('base64url');
const randomSecret = () => randomBytes(32).toString('base64url');
const codeLifetimeMs = 60_000;

function oauthError(status: number, error: string, description: string): TokenAnswer {
  return { status, body: { error, error_description: description } };
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(hashOf(given));
  const b = Buffer.from(hashOf(expected));
  return timingSafeEqual(a, b);
}

/** Whether `uri` is one of `allowed` (an entry ending in `*` allows every URI it prefixes). */
export function uriAllowed(uri: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) =>
    entry.endsWith('*') ? uri.startsWith(entry.slice(0, -1)) : uri === entry,
  );
}

export class IdentityProvider {
  readonly users: UserDirectory;
  readonly signInLimits: SignInLimits;
  private readonly now: () => number;
  private readonly clients: Map<string, Client>;

  private readonly options: ProviderOptions;

  constructor(options: ProviderOptions) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.users = new UserDirectory(options.store, options.emailDomain, this.now);
    this.signInLimits = new SignInLimits(
      options.store,
      options.settings.signIn,
      this.now,
      options.onLock,
    );
    this.clients = new Map(options.settings.clients.map((client) => [client.id, client]));
    if (!this.clients.has(options.gatewayClient.id))
      this.clients.set(options.gatewayClient.id, {
        id: options.gatewayClient.id,
        ...(options.gatewayClient.secret ? { secret: options.gatewayClient.secret } : {}),
        redirectUris: [],
        gateway: true,
      });
  }

  get settings(): IdentitySettings {
    return this.options.settings;
  }

  key(): Promise<SigningKey> {
    return this.options.key();
  }

  client(id: string | undefined): Client | undefined {
    return id === undefined ? undefined : this.clients.get(id);
  }

  /** Whether the client may be sent back to `uri` (from the provider at `issuer`). */
  redirectAllowed(client: Client, uri: string, issuer: string): boolean {
    if (client.gateway) {
      try {
        const target = new URL(uri);
        return (
          target.origin === new URL(issuer).origin &&
          ['/oidc/callback', '/docs'].includes(target.pathname)
        );
      } catch {
        return false;
      }
    }
    return uriAllowed(uri, client.redirectUris);
  }

  private rolesOf(user: IdentityUser): string[] {
    return user.admin ? [...this.options.adminRoles] : [];
  }

  /**
   * The `entitlement` claim: the user's groups, as the DE's identity provider lists a user's
   * Grouper groups there; a web UI decides who is an administrator from it (its `admin.groups`).
   */
  private async entitlementOf(user: IdentityUser): Promise<string[]> {
    const groups = await this.options.groupsOf(user.username);
    return [...new Set([...(user.admin ? [this.options.adminGroup] : []), ...groups])];
  }

  // --- Passwords ------------------------------------------------------------------------------

  /**
   * The one password check of every sign-in (the sign-in page, the password grant behind `/token`
   * and `/admin/token`): refused while the username or the address is locked, whatever the
   * password (no oracle, and no scrypt spent); a right password clears the username's failures.
   */
  async checkPassword(
    username: string,
    password: string,
    address: string | undefined,
  ): Promise<PasswordCheck> {
    const admission = await this.signInLimits.admit(username, address);
    if (!admission.admitted)
      return { outcome: 'locked', retryAfterSeconds: admission.retryAfterSeconds };
    const user = await this.users.check(username, password);
    await this.signInLimits.settle(admission, user !== undefined);
    return user ? { outcome: 'signed-in', user } : { outcome: 'refused' };
  }

  // --- Sessions -------------------------------------------------------------------------------

  /** A new sign-in session; its secret goes in the SSO cookie, its id (the secret's hash) in tokens. */
  async startSession(username: string): Promise<{ secret: string; session: Session }> {
    const secret = randomSecret();
    const now = this.now();
    await this.sweep(now);
    const session = {
      id: hashOf(secret),
      username,
      createdAt: now,
      expiresAt: now + this.settings.sessionSeconds * 1000,
    };
    await this.options.store.db
      .insertInto('idp_sessions')
      .values({
        id: session.id,
        username,
        created_at: session.createdAt,
        expires_at: session.expiresAt,
      })
      .execute();
    return { secret, session };
  }

  /** Forgets ended sessions (with their codes and refresh tokens) and expired codes. */
  private async sweep(now: number): Promise<void> {
    const db = this.options.store.db;
    const ended = db.selectFrom('idp_sessions').select('id').where('expires_at', '<=', now);
    await db.deleteFrom('idp_refresh_tokens').where('session_id', 'in', ended).execute();
    await db
      .deleteFrom('idp_codes')
      .where((eb) => eb.or([eb('session_id', 'in', ended), eb('expires_at', '<=', now)]))
      .execute();
    await db.deleteFrom('idp_sessions').where('expires_at', '<=', now).execute();
  }

  async sessionById(id: string): Promise<Session | undefined> {
    const row = await this.options.store.db
      .selectFrom('idp_sessions')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (!row) return undefined;
    if (Number(row.expires_at) <= this.now()) {
      await this.endSession(row.id);
      return undefined;
    }
    return {
      id: row.id,
      username: row.username,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
    };
  }

  /** The live session of an SSO cookie's secret. */
  sessionOfSecret(secret: string | undefined): Promise<Session | undefined> {
    return secret ? this.sessionById(hashOf(secret)) : Promise.resolve(undefined);
  }

  /** Ends a session: its codes and refresh tokens go with it. */
  async endSession(id: string): Promise<void> {
    const db = this.options.store.db;
    await db.deleteFrom('idp_refresh_tokens').where('session_id', '=', id).execute();
    await db.deleteFrom('idp_codes').where('session_id', '=', id).execute();
    await db.deleteFrom('idp_sessions').where('id', '=', id).execute();
  }

  /** Ends the session a refresh token belongs to (a back-channel logout). */
  async endSessionOfRefreshToken(refreshToken: string): Promise<void> {
    const row = await this.options.store.db
      .selectFrom('idp_refresh_tokens')
      .select('session_id')
      .where('token_hash', '=', hashOf(refreshToken))
      .executeTakeFirst();
    if (row) await this.endSession(row.session_id);
  }

  /** The session an ID token (even an expired one) names, when this provider signed it. */
  async sessionIdOfHint(idToken: string): Promise<{ sessionId?: string; clientId?: string }> {
    const payload = await signedPayload(await this.key(), idToken);
    if (!payload) return {};
    const aud = Array.isArray(payload.aud) ? payload.aud[0] : payload.aud;
    return {
      ...(typeof payload.sid === 'string' ? { sessionId: payload.sid } : {}),
      ...(typeof aud === 'string' ? { clientId: aud } : {}),
    };
  }

  // --- Codes ----------------------------------------------------------------------------------

  async issueCode(session: Session, request: AuthorizationRequest): Promise<string> {
    const code = randomSecret();
    await this.options.store.db
      .insertInto('idp_codes')
      .values({
        code_hash: hashOf(code),
        session_id: session.id,
        client_id: request.clientId,
        redirect_uri: request.redirectUri,
        scope: request.scope,
        nonce: request.nonce ?? null,
        code_challenge: request.codeChallenge ?? null,
        expires_at: this.now() + codeLifetimeMs,
      })
      .execute();
    return code;
  }

  // --- The token endpoint ---------------------------------------------------------------------

  /** One token request (RFC 6749 §3.2): `form` as posted, and who asks. */
  async token(
    form: Record<string, string | undefined>,
    { issuer, basic, trusted = false, address }: TokenRequestContext,
  ): Promise<TokenAnswer> {
    const clientId = basic?.id ?? form.client_id;
    const client = this.client(clientId);
    if (!client) return oauthError(401, 'invalid_client', 'Invalid client credentials');
    const given = basic?.secret ?? form.client_secret;
    const authenticated =
      trusted ||
      (client.secret !== undefined && given !== undefined && sameSecret(given, client.secret));
    if (client.secret !== undefined && !authenticated)
      return oauthError(401, 'unauthorized_client', 'Invalid client secret');
    switch (form.grant_type) {
      case 'password':
        return this.passwordGrant(form, client, issuer, address);
      case 'authorization_code':
        return this.codeGrant(form, client, issuer);
      case 'refresh_token':
        return this.refreshGrant(form, client, issuer);
      case tokenExchangeGrant:
        if (!authenticated)
          return oauthError(
            403,
            'unauthorized_client',
            'Token exchange needs a confidential client',
          );
        return this.exchangeGrant(form, client, issuer);
      case undefined:
        return oauthError(400, 'invalid_request', 'Missing form parameter: grant_type');
      default:
        return oauthError(
          400,
          'unsupported_grant_type',
          `Unsupported grant_type ${form.grant_type}`,
        );
    }
  }

  private async passwordGrant(
    form: Record<string, string | undefined>,
    client: Client,
    issuer: string,
    address: string | undefined,
  ): Promise<TokenAnswer> {
    if (!form.username || form.password === undefined)
      return oauthError(400, 'invalid_request', 'Missing parameter: username or password');
    const check = await this.checkPassword(form.username, form.password, address);
    if (check.outcome === 'locked')
      return {
        ...oauthError(
          429,
          'temporarily_unavailable',
          `Too many failed sign-ins: try again in ${check.retryAfterSeconds} s`,
        ),
        retryAfterSeconds: check.retryAfterSeconds,
      };
    if (check.outcome === 'refused')
      return oauthError(401, 'invalid_grant', 'Invalid user credentials');
    const { session } = await this.startSession(check.user.username);
    return this.issue(check.user, session, client.id, form.scope, issuer);
  }

  private async codeGrant(
    form: Record<string, string | undefined>,
    client: Client,
    issuer: string,
  ): Promise<TokenAnswer> {
    if (!form.code) return oauthError(400, 'invalid_request', 'Missing parameter: code');
    const db = this.options.store.db;
    const row = await db
      .selectFrom('idp_codes')
      .selectAll()
      .where('code_hash', '=', hashOf(form.code))
      .executeTakeFirst();
    // Used once: whoever deletes the row owns the code.
    const deleted = row
      ? await db.deleteFrom('idp_codes').where('code_hash', '=', row.code_hash).executeTakeFirst()
      : undefined;
    if (!row || Number(deleted?.numDeletedRows ?? 0) === 0 || Number(row.expires_at) <= this.now())
      return oauthError(400, 'invalid_grant', 'Code not valid');
    if (row.client_id !== client.id)
      return oauthError(400, 'invalid_grant', 'Code was issued to another client');
    if (form.redirect_uri !== row.redirect_uri)
      return oauthError(400, 'invalid_grant', 'Incorrect redirect_uri');
    if (row.code_challenge !== null) {
      if (!form.code_verifier)
        return oauthError(400, 'invalid_grant', 'PKCE code verifier not specified');
      if (
        createHash('sha256').update(form.code_verifier).digest('base64url') !== row.code_challenge
      )
        return oauthError(400, 'invalid_grant', 'PKCE verification failed');
    }
    const session = await this.sessionById(row.session_id);
    const user = session && (await this.users.find(session.username));
    if (!session || !user) return oauthError(400, 'invalid_grant', 'Session not active');
    return this.issue(user, session, client.id, row.scope, issuer, row.nonce ?? undefined);
  }

  private async refreshGrant(
    form: Record<string, string | undefined>,
    client: Client,
    issuer: string,
  ): Promise<TokenAnswer> {
    if (!form.refresh_token)
      return oauthError(400, 'invalid_request', 'Missing parameter: refresh_token');
    const db = this.options.store.db;
    const hash = hashOf(form.refresh_token);
    const row = await db
      .selectFrom('idp_refresh_tokens')
      .selectAll()
      .where('token_hash', '=', hash)
      .executeTakeFirst();
    // Another client's token is refused and left alone.
    if (row && row.client_id !== client.id)
      return oauthError(
        400,
        'invalid_grant',
        "Invalid refresh token. Token client and authorized client don't match",
      );
    // Rotated: a refresh token is good for one use.
    const deleted = row
      ? await db.deleteFrom('idp_refresh_tokens').where('token_hash', '=', hash).executeTakeFirst()
      : undefined;
    if (!row || Number(deleted?.numDeletedRows ?? 0) === 0 || Number(row.expires_at) <= this.now())
      return oauthError(400, 'invalid_grant', 'Invalid refresh token');
    const session = await this.sessionById(row.session_id);
    const user = session && (await this.users.find(session.username));
    if (!session || !user) return oauthError(400, 'invalid_grant', 'Session not active');
    return this.issue(user, session, client.id, row.scope, issuer);
  }

  /** Keycloak's impersonation: an administrator's access token for a token of `requested_subject`. */
  private async exchangeGrant(
    form: Record<string, string | undefined>,
    client: Client,
    issuer: string,
  ): Promise<TokenAnswer> {
    if (!form.subject_token || !form.requested_subject)
      return oauthError(
        400,
        'invalid_request',
        'Missing parameter: subject_token or requested_subject',
      );
    const payload = await signedPayload(await this.key(), form.subject_token);
    const nowSeconds = Math.floor(this.now() / 1000);
    if (
      !payload ||
      payload.typ !== 'Bearer' ||
      typeof payload.exp !== 'number' ||
      payload.exp <= nowSeconds
    )
      return oauthError(400, 'invalid_token', 'Invalid token');
    const session =
      typeof payload.sid === 'string' ? await this.sessionById(payload.sid) : undefined;
    const caller = session && (await this.users.find(session.username));
    if (!caller) return oauthError(400, 'invalid_token', 'Invalid token');
    if (!caller.admin) return oauthError(403, 'access_denied', 'Client not allowed to exchange');
    const target = await this.users.find(form.requested_subject);
    if (!target) return oauthError(400, 'invalid_request', 'Requested subject not found');
    const { session: impersonation } = await this.startSession(target.username);
    return this.issue(target, impersonation, client.id, form.scope, issuer);
  }

  private async issue(
    user: IdentityUser,
    session: Session,
    clientId: string,
    requestedScope: string | undefined,
    issuer: string,
    nonce?: string,
  ): Promise<TokenAnswer> {
    const scope = [
      ...new Set([...(requestedScope ?? '').split(' ').filter(Boolean), 'profile', 'email']),
    ].join(' ');
    const now = this.now();
    const nowSeconds = Math.floor(now / 1000);
    const refreshSeconds = Math.max(
      1,
      Math.min(this.settings.refreshTokenSeconds, Math.floor((session.expiresAt - now) / 1000)),
    );
    const tokens = await signTokens(await this.key(), {
      issuer,
      user,
      clientId,
      sessionId: session.id,
      scope,
      roles: this.rolesOf(user),
      entitlement: await this.entitlementOf(user),
      nowSeconds,
      accessSeconds: this.settings.accessTokenSeconds,
      refreshSeconds,
      ...(nonce ? { nonce } : {}),
      authTime: Math.floor(session.createdAt / 1000),
    });
    await this.options.store.db
      .insertInto('idp_refresh_tokens')
      .values({
        token_hash: hashOf(tokens.refreshToken),
        session_id: session.id,
        client_id: clientId,
        scope,
        expires_at: now + refreshSeconds * 1000,
      })
      .execute();
    return {
      status: 200,
      body: {
        access_token: tokens.accessToken,
        expires_in: this.settings.accessTokenSeconds,
        refresh_expires_in: refreshSeconds,
        refresh_token: tokens.refreshToken,
        token_type: 'Bearer',
        ...(tokens.idToken ? { id_token: tokens.idToken } : {}),
        'not-before-policy': 0,
        session_state: session.id,
        scope,
      },
    };
  }

  /** The userinfo claims of an access token this provider signed, while its session lasts. */
  async userinfo(accessToken: string): Promise<Record<string, unknown> | undefined> {
    const payload = await signedPayload(await this.key(), accessToken);
    if (!payload || payload.typ !== 'Bearer' || typeof payload.exp !== 'number') return undefined;
    if (payload.exp <= Math.floor(this.now() / 1000) || typeof payload.sid !== 'string')
      return undefined;
    const session = await this.sessionById(payload.sid);
    const user = session && (await this.users.find(session.username));
    if (!user) return undefined;
    return {
      sub: user.username,
      preferred_username: user.username,
      email: user.email,
      email_verified: true,
      given_name: user.firstName,
      family_name: user.lastName,
      name: [user.firstName, user.lastName].filter(Boolean).join(' '),
      entitlement: await this.entitlementOf(user),
    };
  }
}
