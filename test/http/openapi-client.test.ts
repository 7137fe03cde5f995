// A client generated from /openapi.json type-checks against what the gateway answers: the types
// openapi-typescript makes from the document of a running gateway, and a small typed client file
// that assigns the answers this test receives (bootstrap, a folder listing, the apps listing,
// notifications, a POST with a body) to the generated response types and its request bodies to
// the generated body types, checked by tsc. A field the document misdescribes fails the check.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import openapiTS, { astToString } from 'openapi-typescript';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
} from '../support/tokens.ts';

let jwks: JwksServer;
let running: RunningGateway;
let headers: Record<string, string>;
const folder = mkdtempSync(path.join(tmpdir(), 'openapi-client-'));

before(async () => {
  const key = await createSigningKey('ES256', 'client-key');
  jwks = await startJwksServer([key]);
  running = await startGateway({ ...noRateLimits, AUTH_JWKS_URL: jwks.url, DATA_ZONE: 'lab' });
  headers = bearer(await signToken(key, userClaims('alice')));
});
after(async () => {
  await running.close();
  await jwks.close();
  rmSync(folder, { recursive: true, force: true });
});

/** One call of the typed client: the operation it types, what it sent, what it received. */
interface Call {
  name: string;
  path: string;
  method: 'get' | 'post';
  url: string;
  status: number;
  body?: unknown;
  answer: unknown;
}

async function call(
  name: string,
  method: Call['method'],
  documentPath: string,
  url: string,
  body?: unknown,
): Promise<Call> {
  const response = await fetch(`${running.url}${url}`, {
    method: method.toUpperCase(),
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const answer: unknown = await response.json();
  assert.ok(response.ok, `${name}: ${response.status} ${JSON.stringify(answer)}`);
  return {
    name,
    path: documentPath,
    method,
    url,
    status: response.status,
    ...(body === undefined ? {} : { body }),
    answer,
  };
}

/** The typed client file: each answer assigned to the type of its operation's success answer. */
function clientSource(calls: Call[]): string {
  const lines = [
    `import type { paths } from './schema.js';`,
    ``,
    `/** The JSON answer of an operation, for a status. */`,
    `type Answer<P extends keyof paths, M extends keyof paths[P], S extends number> =`,
    `  paths[P][M] extends { responses: { [K in S]: { content: { 'application/json': infer T } } } }`,
    `    ? T`,
    `    : never;`,
    `/** The JSON body of an operation. */`,
    `type Body<P extends keyof paths, M extends keyof paths[P]> =`,
    `  paths[P][M] extends { requestBody?: { content: { 'application/json': infer T } } } ? T : never;`,
    ``,
  ];
  for (const [index, recorded] of calls.entries()) {
    const operation = `${JSON.stringify(recorded.path)}, ${JSON.stringify(recorded.method)}`;
    // Received values are assigned from a variable (no excess-property check: a field the
    // document does not list is allowed, as additionalProperties is), each checked in full.
    lines.push(`// ${recorded.name}: ${recorded.method.toUpperCase()} ${recorded.url}`);
    lines.push(`const received${index} = ${JSON.stringify(recorded.answer)} as const;`);
    lines.push(
      `export const answer${index}: Answer<${operation}, ${recorded.status}> = received${index};`,
    );
    if (recorded.body !== undefined) {
      lines.push(`const sent${index} = ${JSON.stringify(recorded.body)} as const;`);
      lines.push(`export const body${index}: Body<${operation}> = sent${index};`);
    }
    lines.push('');
  }
  return lines.join('\n');
}

test('a client generated from /openapi.json type-checks against the answers received', async () => {
  const document = (await (await fetch(`${running.url}/openapi.json`)).json()) as Record<
    string,
    unknown
  >;
  const home = '/lab/home/alice';
  const calls = [
    await call('bootstrap', 'get', '/secured/bootstrap', '/secured/bootstrap'),
    await call(
      'a folder listing',
      'get',
      '/secured/filesystem/paged-directory',
      `/secured/filesystem/paged-directory?path=${encodeURIComponent(home)}&limit=10`,
    ),
    await call('the apps listing', 'get', '/apps', '/apps'),
    await call(
      'notifications',
      'get',
      '/secured/notifications/messages',
      '/secured/notifications/messages?limit=10',
    ),
    await call(
      'a folder created',
      'post',
      '/secured/filesystem/directory/create',
      '/secured/filesystem/directory/create',
      { path: `${home}/typed-client` },
    ),
    await call(
      'paths checked',
      'post',
      '/secured/filesystem/exists',
      '/secured/filesystem/exists',
      {
        paths: [home, `${home}/nowhere`],
      },
    ),
  ];

  const types = astToString(await openapiTS(document as never, { immutable: true }));
  writeFileSync(path.join(folder, 'schema.ts'), types);
  writeFileSync(path.join(folder, 'client.ts'), clientSource(calls));
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const checked = spawnSync(
    process.execPath,
    [
      tsc,
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      '--target',
      'es2022',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      path.join(folder, 'client.ts'),
    ],
    { encoding: 'utf8' },
  );
  assert.equal(checked.status, 0, `tsc:\n${checked.stdout}${checked.stderr}`);
});
