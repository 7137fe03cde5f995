// A real OAuth 2.0 token endpoint for the OAuth tests (RFC 6749 §4.1.3, §6): it grants codes it
// was told about, refreshes the refresh tokens it issued, and records every request it got.
import type { ServerResponse } from 'node:http';
import { startBackend, type RecordedRequest, type TestBackend } from './backend.ts';

export interface TokenRequest {
  /** The form fields, as sent. */
  form: Record<string, string>;
  /** The HTTP Basic credentials, decoded (undefined without them). */
  basic?: { id: string; secret: string };
}

export interface IssuedToken {
  access_token: string;
  refresh_token: string;
  expires_in: number;
}

export interface OAuthServer {
  tokenUrl: string;
  requests: TokenRequest[];
  /** Makes `code` exchangeable (once) for a fresh token. */
  grantCode(code: string): void;
  /** The tokens issued so far, newest last. */
  issued: IssuedToken[];
  /** Answers every following request with this status and body instead (undefined: back to normal). */
  failWith(answer: { status: number; body: unknown } | undefined): void;
  close(): Promise<void>;
}

export const tokenLifetimeSeconds = 3600;

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
}

function decodeBasic(header: string | undefined): TokenRequest['basic'] {
  if (!header?.startsWith('Basic ')) return undefined;
  const [id = '', secret = ''] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
  return { id: decodeURIComponent(id), secret: decodeURIComponent(secret) };
}

export async function startOAuthServer(): Promise<OAuthServer> {
  const codes = new Set<string>();
  const refreshTokens = new Set<string>();
  const requests: TokenRequest[] = [];
  const issued: IssuedToken[] = [];
  let failure: { status: number; body: unknown } | undefined;

  const issue = (response: ServerResponse) => {
    const serial = issued.length + 1;
    const token = {
      access_token: `access-${serial}-${Math.random().toString(36).slice(2)}`,
      refresh_token: `refresh-${serial}-${Math.random().toString(36).slice(2)}`,
      expires_in: tokenLifetimeSeconds,
    };
    issued.push(token);
    refreshTokens.add(token.refresh_token);
    send(response, 200, { ...token, token_type: 'Bearer' });
  };

  const backend: TestBackend = await startBackend((request: RecordedRequest, response) => {
    const form = Object.fromEntries(new URLSearchParams(request.body.toString('utf8')));
    requests.push({ form, basic: decodeBasic(request.headers.authorization) });
    if (failure) return send(response, failure.status, failure.body);
    if (request.method !== 'POST' || request.path !== '/token')
      return send(response, 404, { error: 'not_found' });
    if (form.grant_type === 'authorization_code' && form.code && codes.delete(form.code))
      return issue(response);
    if (
      form.grant_type === 'refresh_token' &&
      form.refresh_token &&
      refreshTokens.delete(form.refresh_token)
    )
      return issue(response);
    send(response, 400, { error: 'invalid_grant', error_description: 'unknown or used grant' });
  });

  return {
    tokenUrl: `${backend.url}/token`,
    requests,
    issued,
    grantCode: (code) => void codes.add(code),
    failWith: (answer) => {
      failure = answer;
    },
    close: () => backend.close(),
  };
}

/** A loopback port nothing listens on: a token endpoint that cannot be reached. */
export async function closedPortUrl(): Promise<string> {
  const server = await startOAuthServer();
  const url = server.tokenUrl;
  await server.close();
  return url;
}
