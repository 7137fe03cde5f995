// The contract check (CONTRACT_CHECK, src/http/contract-check.ts): an answer that departs from the
// OpenAPI document (a number where the schema says string, an undocumented success status, a body
// where none is documented, a content type not documented, an error without `error_code`) becomes
// 500 ERR_CONTRACT_VIOLATION naming the operation, the status and the Ajv path, and is logged; so
// does a request that departs from its documented parameters or body yet is answered 2xx, a
// passthrough's streamed JSON body included. Answers relayed from an embedded backend are checked
// at the gateway's edge. Off (the default), the same answers pass unchanged.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { buildGateway, type Gateway } from '../../src/app.ts';
import { loadConfig } from '../../src/config/index.ts';
import { documentedNotEnforced } from '../../src/http/openapi.ts';
import { BackendSchemas } from '../../src/http/backend-schemas.ts';
import { registerPassthroughs } from '../../src/http/passthrough.ts';
import { Forwarder } from '../../src/http/proxy.ts';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { noRateLimits } from '../support/gateway.ts';

interface Violation {
  error_code: string;
  reason: string;
  operation: string;
  status: number;
  errors: { path: string; message: string }[];
}

/** Routes that answer what the test asks, documented as the tests below say. */
async function addRoutes(app: FastifyInstance, gateway: Gateway, standIn: string): Promise<void> {
  const named = Type.Object({ name: Type.String() });
  app.get('/contract/named', {
    config: { auth: 'none' },
    // The answer is JSON.stringify'd as it is: the serializer would otherwise coerce the number.
    ...documentedNotEnforced,
    schema: {
      tags: ['operations'],
      querystring: Type.Object({ name: Type.Optional(Type.Unknown()) }),
      response: { 200: named },
    },
    handler: async (request) => ({ name: (request.query as { name?: unknown }).name ?? 'x' }),
  });
  app.get('/contract/empty', {
    config: { auth: 'none' },
    schema: { tags: ['operations'], response: { 200: Type.Null({ description: 'No body' }) } },
    handler: async (_request, reply) => reply.type('application/json').send('{"done":true}'),
  });
  app.get('/contract/counted', {
    config: { auth: 'none', openapi: { querystring: Type.Object({ count: Type.Integer() }) } },
    schema: { tags: ['operations'], response: { 200: named } },
    handler: async () => ({ name: 'counted' }),
  });
  app.get('/contract/status', {
    config: { auth: 'none' },
    schema: {
      tags: ['operations'],
      querystring: Type.Object({ code: Type.Integer() }),
      response: { 200: named, 204: { description: 'No body', type: 'null' } },
    },
    handler: async (request, typedReply) => {
      const reply = typedReply as FastifyReply;
      const code = (request.query as { code: number }).code;
      if (code === 415) return reply.code(200).type('text/plain').send('plain');
      if (code === 418) return reply.code(418).type('application/json').send({ teapot: true });
      return reply.code(code).send({ name: 'status' });
    },
  });
  // Documented as an embedded service's route documents a passthrough: neither is enforced here.
  const backendSchemas = new BackendSchemas();
  backendSchemas.record('apps', {
    method: 'POST',
    url: '/contract/relayed',
    schema: { body: named, response: { 200: named } },
  });
  await registerPassthroughs(
    app,
    [
      {
        method: 'POST',
        path: '/contract/relayed',
        backend: 'apps',
        auth: 'none',
        tag: 'operations',
        summary: 'Relayed to a stand-in backend',
      },
    ],
    {
      // The stand-in is reached as an embedded service is: a remote one's answers are its own.
      forwarder: new Forwarder(
        { apps: { origin: standIn, basePath: '', timeoutMs: 5_000, embedded: true } },
        gateway.config.uidDomain,
        gateway.metrics,
      ),
      config: gateway.config,
      uidDomain: gateway.config.uidDomain,
      bodyLimitBytes: gateway.config.bodyLimitBytes,
      backendSchemas,
    },
  );
}

async function gatewayWith(contractCheck: string, backend: TestBackend, logs: string[]) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'contract-check-'));
  const gateway = await buildGateway(
    loadConfig({
      ...noRateLimits,
      LOG_LEVEL: 'error',
      GATEWAY_DATA_DIR: dataDir,
      EMBEDDED_BACKENDS: 'none',
      APPS_URL: backend.url,
      CONTRACT_CHECK: contractCheck,
    }),
    { logStream: { write: (line) => logs.push(line) } },
  );
  await addRoutes(gateway.app, gateway, backend.url);
  await gateway.app.ready();
  return {
    app: gateway.app,
    close: async () => {
      await gateway.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('the contract check', () => {
  let backend: TestBackend;
  let checked: Awaited<ReturnType<typeof gatewayWith>>;
  let unchecked: Awaited<ReturnType<typeof gatewayWith>>;
  const logs: string[] = [];

  before(async () => {
    backend = await startBackend((request, response) => {
      const body = JSON.parse(request.body.toString() || '{}') as { answer?: unknown };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ name: body.answer ?? 'relayed' }));
    });
    checked = await gatewayWith('1', backend, logs);
    unchecked = await gatewayWith('0', backend, []);
  });
  after(async () => {
    await checked.close();
    await unchecked.close();
    await backend.close();
  });

  test('a number where the schema says string fails the check, named and logged', async () => {
    const ok = await checked.app.inject({ url: '/contract/named?name=text' });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json(), { name: 'text' });

    const wrong = await checked.app.inject({ url: '/contract/named?name=42' });
    // The query's coercion leaves "42" a string: a number needs the handler's help.
    assert.equal(wrong.statusCode, 200);
    const handler = await checked.app.inject({ url: '/contract/named?name=1&name=2' });
    assert.equal(handler.statusCode, 500, handler.body);
    const body = handler.json<Violation>();
    assert.equal(body.error_code, 'ERR_CONTRACT_VIOLATION');
    assert.equal(body.operation, 'GET /contract/named');
    assert.equal(body.status, 200);
    assert.deepEqual(body.errors, [{ path: 'response.body/name', message: 'must be string' }]);
    assert.match(body.reason, /GET \/contract\/named answered 200 .*response\.body\/name/);
    assert.ok(
      logs.some((line) => line.includes('contract violation') && line.includes('/contract/named')),
      'the violation is logged',
    );
    assert.equal(handler.headers['content-type'], 'application/json; charset=utf-8');
  });

  test('off, the same answer passes unchanged', async () => {
    const answer = await unchecked.app.inject({ url: '/contract/named?name=1&name=2' });
    assert.equal(answer.statusCode, 200);
    assert.deepEqual(answer.json(), { name: ['1', '2'] });
  });

  test('statuses, bodies and content types the document does not give fail it', async () => {
    const cases: [number, string][] = [
      [201, 'status 201 is not documented (200, 204 are)'],
      [202, 'status 202 is not documented (200, 204 are)'],
      [415, 'text/plain is not one of application/json'],
      [418, "must have required property 'error_code'"],
    ];
    for (const [code, message] of cases) {
      const answer = await checked.app.inject({ url: `/contract/status?code=${code}` });
      assert.equal(answer.statusCode, 500, `${code}: ${answer.body}`);
      const body = answer.json<Violation>();
      assert.equal(body.error_code, 'ERR_CONTRACT_VIOLATION');
      assert.ok(
        body.errors.some((error) => error.message === message),
        `${code}: ${JSON.stringify(body.errors)}`,
      );
    }
    const empty = await checked.app.inject({ url: '/contract/empty' });
    assert.equal(empty.statusCode, 500, empty.body);
    assert.deepEqual(empty.json<Violation>().errors, [
      { path: 'response.body', message: 'documented as answering no body' },
    ]);
    // A documented error status is the gateway's error body: it passes.
    const refused = await checked.app.inject({ url: '/contract/status?code=abc' });
    assert.equal(refused.statusCode, 400);
    assert.equal(refused.json<{ error_code: string }>().error_code, 'ERR_BAD_QUERY_PARAMETER');
    const unmatched = await checked.app.inject({ url: '/contract/nowhere' });
    assert.equal(unmatched.statusCode, 404);
  });

  test('a request that departs from its documented parameters is not answered 2xx', async () => {
    assert.equal((await checked.app.inject({ url: '/contract/counted?count=3' })).statusCode, 200);
    const wrong = await checked.app.inject({ url: '/contract/counted?count=three' });
    assert.equal(wrong.statusCode, 500, wrong.body);
    assert.deepEqual(wrong.json<Violation>().errors, [
      { path: 'request.query/count', message: 'must be integer' },
    ]);
    const missing = await checked.app.inject({ url: '/contract/counted' });
    assert.deepEqual(missing.json<Violation>().errors, [
      { path: 'request.query/count', message: "must have required property 'count'" },
    ]);
  });

  test('a relayed answer and a streamed request body are checked at the edge', async () => {
    const post = (body: unknown) =>
      checked.app.inject({
        method: 'POST',
        url: '/contract/relayed',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify(body),
      });
    const ok = await post({ name: 'a', answer: 'b' });
    assert.equal(ok.statusCode, 200, ok.body);
    assert.deepEqual(ok.json(), { name: 'b' });

    const relayed = await post({ name: 'a', answer: 7 });
    assert.equal(relayed.statusCode, 500, relayed.body);
    assert.deepEqual(relayed.json<Violation>().errors, [
      { path: 'response.body/name', message: 'must be string' },
    ]);
    assert.equal(relayed.headers['content-length'], String(Buffer.byteLength(relayed.body)));

    // Read as the gateway's validator reads schemas (with its coercion: a number would do).
    const sent = await post({ name: { first: 'a' } });
    assert.equal(sent.statusCode, 500, sent.body);
    assert.equal(backend.requests.at(-1)?.body.toString(), '{"name":{"first":"a"}}', 'sent as is');
    assert.deepEqual(sent.json<Violation>().errors, [
      { path: 'request.body/name', message: 'must be string' },
    ]);
  });
});
