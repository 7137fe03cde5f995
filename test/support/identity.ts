// Helpers for the identity tests: HTTP Basic, cookie jars over fetch, the embedded identity
// provider's users, and a local OAuth 2.0 token endpoint that records the forms it receives.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { userDirectory } from '../../src/backends/identity/index.ts';
import { hashPassword } from '../../src/backends/identity/passwords.ts';
import type { RunningGateway } from './gateway.ts';

export const basic = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});

/** The `Set-Cookie` lines of a response, by cookie name. */
export function setCookies(response: Response): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const line of response.headers.getSetCookie()) cookies.set(line.split('=')[0]!, line);
  return cookies;
}

/** A browser's cookie jar, enough for these tests: name → value, emptied by Max-Age=0. */
export class CookieJar {
  readonly values = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const index = pair.indexOf('=');
      const name = pair.slice(0, index);
      if (/max-age=0\b/i.test(line)) this.values.delete(name);
      else this.values.set(name, pair.slice(index + 1));
    }
  }

  header(): string {
    return [...this.values].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** fetch with the jar's cookies, redirects not followed, and the answer's cookies kept. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.values.size > 0) headers.set('cookie', this.header());
    const response = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.take(response);
    return response;
  }
}

export async function addUser(
  running: RunningGateway,
  username: string,
  password: string,
  options: { admin?: boolean; email?: string } = {},
): Promise<void> {
  await userDirectory(running.gateway.store, running.gateway.config.uidDomain).add({
    username,
    password,
    firstName: username[0]!.toUpperCase() + username.slice(1),
    lastName: 'Tester',
    ...options,
  });
}

/**
 * Adds a user whose password is cheap to check (scrypt N=1024 instead of 16384; the stored hash
 * names its cost, so the same check reads it), for tests that check many passwords.
 */
export async function addUserWithCheapHash(
  running: RunningGateway,
  username: string,
  password: string,
): Promise<void> {
  const now = Date.now();
  await running.gateway.store.db
    .insertInto('idp_users')
    .values({
      username,
      email: `${username}@example.org`,
      first_name: username,
      last_name: 'Tester',
      password_hash: await hashPassword(password, { N: 1024, r: 8, p: 1 }),
      admin: false,
      created_at: now,
      updated_at: now,
    })
    .execute();
}

export interface FormRequest {
  form: Record<string, string>;
  authorization?: string;
}

export interface TokenServer {
  url: string;
  requests: FormRequest[];
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** A token endpoint answering each form with `answer` (status and JSON body), recording them all. */
export async function startTokenServer(
  answer: (
    form: Record<string, string>,
  ) => Promise<{ status: number; body: unknown }> | { status: number; body: unknown },
): Promise<TokenServer> {
  const requests: FormRequest[] = [];
  const server = createServer(async (request, response) => {
    const form = Object.fromEntries(new URLSearchParams(await readBody(request)));
    requests.push({
      form,
      ...(request.headers.authorization ? { authorization: request.headers.authorization } : {}),
    });
    const { status, body } = await answer(form);
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/realms/test/protocol/openid-connect/token`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The hidden fields of a sign-in page: the authorization request it carries and its form token. */
export function hiddenFields(html: string): Record<string, string> {
  const unescape = (text: string) =>
    text
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  return Object.fromEntries(
    [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((match) => [
      unescape(match[1]!),
      unescape(match[2]!),
    ]),
  );
}

/**
 * Signs in as a browser does: opens the sign-in page of `authorizeUrl` with the jar (which keeps
 * its form-token cookie), then posts its form with the credentials. Answers the POST's response.
 */
export async function signInThroughPage(
  jar: CookieJar,
  authorizeUrl: string,
  username: string,
  password: string,
): Promise<Response> {
  const page = await jar.fetch(authorizeUrl);
  if (page.status !== 200) throw new Error(`no sign-in page: ${page.status} ${await page.text()}`);
  return jar.fetch(authorizeUrl.split('?')[0]!, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      ...hiddenFields(await page.text()),
      username,
      password,
    }).toString(),
  });
}
