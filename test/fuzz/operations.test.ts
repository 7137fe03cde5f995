// Fuzzing every operation of /openapi.json (fast-check): each is sent generated and mutated
// requests (requests.ts: wrong types, huge strings, deep JSON, odd Unicode, repeated parameters,
// bad percent-encoding, wrong content types, bodies on GET) as a user, an administrator and
// nobody, in process (app.inject), with the contract check on (CONTRACT_CHECK: a 2xx that departs
// from its schema, or answers a request that departs from its documentation, becomes a 500).
// Properties: no crash, no hang (each request bounded), no 5xx but those the operation documents
// (file I/O's 500s, GET /'s ERR_UNEXPECTED_SERVICE), every 4xx JSON with an `error_code` (OAuth's
// `{error}` on /realms/*, or a documented page). `npm test` runs a fixed seed and a few runs per
// operation on SQLite; `npm run fuzz` many, with a random seed it prints (FUZZ_SEED, FUZZ_RUNS,
// FUZZ_ENGINE=postgres for PostgreSQL, FUZZ_ONLY=<path substring> for some operations).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { signEmbeddedToken } from '../../src/http/keys.ts';
import { isJsonMediaType, mediaType, type ContractDocument } from '../../src/http/contract.ts';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import { engineDatabase } from '../support/postgres.ts';
import { requestOf, type FuzzRequest } from './requests.ts';

const seed = Number(process.env.FUZZ_SEED ?? 45);
const runs = Number(process.env.FUZZ_RUNS ?? 2);
const engine = process.env.FUZZ_ENGINE === 'postgres' ? 'postgres' : 'sqlite';
const only = process.env.FUZZ_ONLY;
/** The most one request may take before it counts as hanging (a loaded CI machine is slow). */
const requestBoundMs = Number(process.env.FUZZ_REQUEST_MS ?? 15_000);

/** Operations that answer an open-ended stream: an answer that never ends is what they are for. */
const openEnded = (operation: ContractDocument['paths'][string][string]) =>
  Object.keys(operation.responses?.['200']?.content ?? {}).includes('text/event-stream');

let running: RunningGateway;
let drop: () => Promise<void>;
let document: ContractDocument;
const tokens: Record<string, Record<string, string>> = {};

before(async () => {
  const database = await engineDatabase(engine);
  drop = database.drop;
  running = await startGateway({ ...noRateLimits, ...database.env, CONTRACT_CHECK: '1' });
  const sign = async (username: string, admin: boolean) => ({
    authorization: `Bearer ${await signEmbeddedToken(
      running.dataDir,
      {
        username,
        roles: admin ? running.gateway.config.auth.adminRoles : [],
        groups: admin ? [running.gateway.config.auth.adminGroup] : [],
      },
      running.gateway.config.keys.authSigningKey,
    )}`,
  });
  tokens.user = await sign('fuzz-user', false);
  tokens.admin = await sign('fuzz-admin', true);
  tokens.anonymous = {};
  document = (await running.gateway.app.inject({ url: '/openapi.json' })).json();
  console.log(`fuzz: FUZZ_SEED=${seed} FUZZ_RUNS=${runs} FUZZ_ENGINE=${engine}`);
});
after(async () => {
  await running?.close();
  await drop?.();
});

/** Sends one request, failing it when no answer comes within the bound. */
async function send(request: FuzzRequest): Promise<LightMyRequestResponse> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${requestBoundMs} ms (a hang)`)),
      requestBoundMs,
    );
  });
  try {
    return await Promise.race([
      running.gateway.app.inject({
        method: request.method as 'GET',
        url: request.url,
        headers: { ...request.headers, ...tokens[request.caller] },
        ...(request.payload !== undefined ? { payload: request.payload } : {}),
      }),
      bound,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What is wrong with an answer, if anything. */
function fault(
  method: string,
  path: string,
  operation: ContractDocument['paths'][string][string],
  answer: LightMyRequestResponse,
): string | undefined {
  const status = answer.statusCode;
  const documented = operation.responses?.[String(status)];
  if (status >= 500 && !documented) return `${status} is not documented: ${answer.body}`;
  // A HEAD answer has no body: its status is all there is to judge.
  if (method === 'HEAD') return undefined;
  const type = mediaType(answer.headers['content-type']);
  let body: Record<string, unknown> | undefined;
  if (isJsonMediaType(type)) {
    try {
      body = answer.json();
    } catch {
      return `${status} answered with a body that is not JSON`;
    }
  }
  if (status >= 400) {
    if (!body) {
      const types = Object.keys(documented?.content ?? {});
      return type && types.includes(type)
        ? undefined
        : `${status} answered ${type ?? 'no type'}, not a JSON error: ${answer.body.slice(0, 200)}`;
    }
    const realm = path.startsWith('/realms/');
    const code = realm ? body.error : body.error_code;
    if (typeof code !== 'string')
      return `${status} without ${realm ? 'an OAuth error' : 'an error_code'}: ${answer.body}`;
  }
  return undefined;
}

describe(`every operation of /openapi.json, fuzzed (${engine})`, () => {
  test('no crash, no hang, no undocumented 5xx, every error with its code, every 2xx as documented', async (t) => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    );
    const chosen = operations.filter(
      ({ path, operation }) => !openEnded(operation) && (only === undefined || path.includes(only)),
    );
    const failures: string[] = [];
    let requests = 0;
    const statuses: Record<string, number> = {};
    for (const [index, { path, method, operation }] of chosen.entries()) {
      const name = `${method.toUpperCase()} ${path}`;
      const outcome = await fc.check(
        fc.asyncProperty(requestOf(path, method.toUpperCase(), operation), async (request) => {
          requests++;
          const answer = await send(request);
          const kind = `${String(answer.statusCode)[0]}xx`;
          statuses[kind] = (statuses[kind] ?? 0) + 1;
          const wrong = fault(method.toUpperCase(), path, operation, answer);
          if (wrong) throw new Error(wrong);
        }),
        { seed: seed + index, numRuns: runs, endOnFailure: true },
      );
      if (outcome.failed)
        failures.push(
          `${name} (seed ${seed + index}): ${String((outcome.errorInstance as Error)?.message ?? outcome.errorInstance).slice(0, 600)}\n  request: ${JSON.stringify(outcome.counterexample?.[0]).slice(0, 600)}`,
        );
    }
    t.diagnostic(
      `${chosen.length} operations (${operations.length - chosen.length} left out), ${requests} requests: ${JSON.stringify(statuses)}`,
    );
    assert.deepEqual(failures, [], `operations that failed:\n${failures.join('\n')}`);
  });
});

/** Requests the fuzzing found answered against the document, kept as they were found. */
const found: { request: FuzzRequest; why: string }[] = [
  {
    why: 'bag contents are any JSON object, not the fields the tests had sent',
    request: {
      method: 'POST',
      url: '/bags/default?unknown-parameter=%FF',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: '{"files":[],"a":""}',
      caller: 'user',
    },
  },
  {
    why: "a tool request's optional fields are not answered when not given",
    request: {
      method: 'POST',
      url: '/tool-requests',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        name: 'zargument',
        description: '{unb_8MMc',
        source_url: '$4U(G[=z6<',
        version: 'bl-mVD;+',
        multithreaded: true,
        test_data_path: '$@*`G9)\\',
        cmd_line: '&!',
        source_upload_file: 'na',
      }),
      caller: 'user',
    },
  },
  {
    why: 'the user-info service reads a body of any type as JSON',
    request: {
      method: 'POST',
      url: '/secured/sessions',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      payload: '{"ref":5e-323}',
      caller: 'admin',
    },
  },
  {
    why: 'so does a saved search',
    request: {
      method: 'POST',
      url: '/secured/saved-searches',
      headers: { 'content-type': 'text/plain' },
      payload: '[["b``%q1",true]]',
      caller: 'user',
    },
  },
  {
    why: 'and a mark-all route',
    request: {
      method: 'POST',
      url: '/secured/notifications/system/mark-all-seen?unknown-parameter=%zz',
      headers: { 'content-type': 'application/xml' },
      payload: '{"sJ":-1.8936875182307667e+279}',
      caller: 'admin',
    },
  },
  {
    why: 'a HEAD answer (404: no bags) has no body to judge',
    request: { method: 'HEAD', url: '/bags', headers: {}, caller: 'user' },
  },
];

test('the requests the fuzzing found, pinned', async () => {
  for (const { request, why } of found) {
    const [path, operation] = Object.entries(document.paths)
      .map(([path, methods]) => [path, methods[request.method.toLowerCase()]] as const)
      .find(([path]) =>
        new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(request.url.split('?')[0]!),
      )!;
    const answer = await send(request);
    assert.ok(answer.statusCode < 500, `${why}: ${answer.statusCode} ${answer.body}`);
    assert.equal(fault(request.method, path, operation!, answer), undefined, why);
  }
});
