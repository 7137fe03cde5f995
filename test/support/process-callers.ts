// Users calling a gateway that runs in a process of its own (src/main.ts through main-process.ts):
// `alice` and the administrator `root` with tokens of a JWKS server of their own (its URL is the
// gateway's AUTH_JWKS_URL), and an approved `sh -c <script>` app of alice's on a tool whose
// settings say where it runs (an image for Docker, the host's /bin for the sandbox or Slurm).
import assert from 'node:assert/strict';
import { bearer, createSigningKey, signToken, startJwksServer, userClaims } from './tokens.ts';

export const admin = 'root';

export interface Answer {
  status: number;
  /** The JSON body, when the answer is JSON. */
  body: any;
  text: string;
}

export interface ProcessCallers {
  /** The JWKS server's URL: the gateway's AUTH_JWKS_URL. */
  jwksUrl: string;
  /** The `Authorization` header of `user` (`alice` or `root`), for requests a test sends itself. */
  headers(user: string): Record<string, string>;
  /** Calls the gateway at `url()` as `user` (`alice` or `root`). */
  call(user: string, method: string, route: string, json?: unknown): Promise<Answer>;
  /** As call, and fails unless the status is 2xx; answers the JSON body. */
  ok(user: string, method: string, route: string, json?: unknown): Promise<any>;
  close(): Promise<void>;
}

export async function processCallers(url: () => string): Promise<ProcessCallers> {
  const key = await createSigningKey('ES256', 'process-callers');
  const jwks = await startJwksServer([key]);
  const tokens: Record<string, string> = {
    alice: await signToken(key, userClaims('alice')),
    [admin]: await signToken(key, userClaims(admin, { realm_access: { roles: ['de-admin'] } })),
  };
  const call: ProcessCallers['call'] = async (user, method, route, json) => {
    const response = await fetch(`${url()}${route}`, {
      method,
      headers: {
        ...bearer(tokens[user]!),
        ...(json === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(json === undefined ? {} : { body: JSON.stringify(json) }),
    });
    const text = await response.text();
    const isJson = response.headers.get('content-type')?.startsWith('application/json');
    return { status: response.status, body: isJson ? JSON.parse(text) : undefined, text };
  };
  return {
    jwksUrl: jwks.url,
    headers: (user) => bearer(tokens[user]!),
    call,
    ok: async (user, method, route, json) => {
      const answer = await call(user, method, route, json);
      assert.ok(answer.status < 300, `${method} ${route}: ${answer.status} ${answer.text}`);
      return answer.body;
    },
    close: () => jwks.close(),
  };
}

/**
 * Alice's app running `sh -c <script>` on a tool with `tool`'s settings, approved by the
 * administrator; answers the app's id and its Script parameter's id.
 */
export async function shellApp(
  callers: ProcessCallers,
  tool: Record<string, unknown>,
): Promise<{ appId: string; script: string }> {
  const { ok } = callers;
  await ok(admin, 'GET', '/secured/filesystem/root');
  await ok('alice', 'GET', '/secured/filesystem/root');
  const made = await ok('alice', 'POST', '/tools', {
    name: 'sh',
    version: '1',
    type: 'executable',
    interactive: false,
    ...tool,
  });
  await ok(admin, 'PATCH', `/admin/tools/${made.id}`, {});
  const app = await ok('alice', 'POST', '/apps/de', {
    name: `sh -c ${Date.now()} ${Math.random()}`,
    tools: [{ id: made.id }],
    groups: [
      {
        label: 'Parameters',
        parameters: [{ type: 'Text', name: '-c', label: 'Script', order: 1 }],
      },
    ],
  });
  const view = await ok('alice', 'GET', `/apps/de/${app.id}`);
  return { appId: app.id, script: view.groups[0].parameters[0].id };
}
