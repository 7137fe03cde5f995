// Route validators and serializers compiled on first use (src/http/lazy-schemas.ts): nothing is
// compiled at start; the first request compiles its route's schemas and is validated, coerced,
// refused (the same 400 body, the gateway's error_code) and serialized exactly as with Fastify's
// eager compilers; header schemas are still matched case-insensitively; compileAll compiles every
// pending schema of a gateway with all its embedded backends, and names a schema that does not compile.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerErrorHandling } from '../../src/common/error-replies.ts';
import { signEmbeddedToken } from '../../src/http/keys.ts';
import { LazySchemas } from '../../src/http/lazy-schemas.ts';
import { startGateway, type RunningGateway } from '../support/gateway.ts';

const ajvOptions = { coerceTypes: 'array' as const, allErrors: false };

/** The same routes on an app with lazy compilers or with Fastify's own (eager) ones. */
async function appWith(lazy: LazySchemas | undefined): Promise<FastifyInstance> {
  const app = Fastify(
    lazy ? lazy.serverOptions(ajvOptions) : { ajv: { customOptions: ajvOptions } },
  );
  registerErrorHandling(app);
  app.post(
    '/things/:id',
    {
      schema: {
        params: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
        querystring: {
          type: 'object',
          properties: { tags: { type: 'array', items: { type: 'string' } } },
        },
        headers: {
          type: 'object',
          properties: { 'X-Thing-Mode': { type: 'string', enum: ['fast', 'slow'] } },
          required: ['X-Thing-Mode'],
        },
        body: {
          type: 'object',
          properties: { name: { type: 'string', minLength: 1 }, size: { type: 'number' } },
          required: ['name'],
          additionalProperties: false,
        },
        response: {
          200: {
            type: 'object',
            properties: {
              id: { type: 'integer' },
              tags: { type: 'array', items: { type: 'string' } },
              name: { type: 'string' },
            },
          },
        },
      },
    },
    async (request) => ({
      ...(request.params as object),
      ...(request.query as object),
      ...(request.body as object),
      secret: 'never serialized',
    }),
  );
  await app.ready();
  return app;
}

describe('lazily compiled route schemas', () => {
  test('a route behaves as with eager compilers: coercion, refusals, serialization', async () => {
    const lazy = new LazySchemas();
    const lazyApp = await appWith(lazy);
    const eagerApp = await appWith(undefined);
    try {
      assert.ok(lazy.pendingCount >= 5, 'nothing compiled before the first request');
      const requests = [
        // valid: id and tags coerced, `secret` left out by the answer's schema
        { url: '/things/7?tags=a', headers: { 'x-thing-mode': 'fast' }, body: { name: 'n' } },
        { url: '/things/x', headers: { 'x-thing-mode': 'fast' }, body: { name: 'n' } },
        { url: '/things/7', headers: { 'x-thing-mode': 'odd' }, body: { name: 'n' } },
        { url: '/things/7', headers: {}, body: { name: 'n' } },
        { url: '/things/7', headers: { 'x-thing-mode': 'slow' }, body: { name: '' } },
        { url: '/things/7', headers: { 'x-thing-mode': 'slow' }, body: { size: 1 } },
        { url: '/things/7', headers: { 'x-thing-mode': 'slow' }, body: { name: 'n', size: 'big' } },
      ];
      for (const request of requests) {
        const [lazyAnswer, eagerAnswer] = await Promise.all(
          [lazyApp, eagerApp].map((app) =>
            app.inject({
              method: 'POST',
              url: request.url,
              headers: request.headers,
              payload: request.body,
            }),
          ),
        );
        assert.equal(lazyAnswer!.statusCode, eagerAnswer!.statusCode, request.url);
        assert.equal(lazyAnswer!.body, eagerAnswer!.body, JSON.stringify(request));
      }
      const first = await lazyApp.inject({
        method: 'POST',
        url: '/things/7?tags=a',
        headers: { 'X-Thing-Mode': 'fast' },
        payload: { name: 'n' },
      });
      assert.equal(first.statusCode, 200);
      assert.deepEqual(first.json(), { id: 7, tags: ['a'], name: 'n' });
      const refused = await lazyApp.inject({
        method: 'POST',
        url: '/things/7',
        headers: { 'x-thing-mode': 'slow' },
        payload: { name: '' },
      });
      assert.equal(refused.statusCode, 400);
      assert.equal(refused.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');
      assert.equal(lazy.pendingCount, 0, 'every schema of the route was compiled by its requests');
    } finally {
      await Promise.all([lazyApp.close(), eagerApp.close()]);
    }
  });

  test('compileAll names a route whose schema does not compile', async () => {
    const lazy = new LazySchemas();
    const app = Fastify(lazy.serverOptions());
    app.get(
      '/broken',
      {
        schema: { response: { 200: { type: 'object', properties: { n: { type: 'nonsense' } } } } },
      },
      async () => ({ n: 1 }),
    );
    await app.ready();
    try {
      assert.throws(() => lazy.compileAll(), /GET \/broken: the 200 answer's schema/);
    } finally {
      await app.close();
    }
  });

  describe('a gateway with all its embedded backends', () => {
    let running: RunningGateway;
    before(async () => {
      running = await startGateway();
    });
    after(() => running.close());

    test('starts with its schemas pending; every one of them compiles', async () => {
      const { schemas } = running.gateway;
      assert.ok(schemas.pendingCount > 1000, `pending at start: ${schemas.pendingCount}`);
      const token = await signEmbeddedToken(running.dataDir, { username: 'carol' });
      const refused = await fetch(`${running.url}/secured/notifications/seen`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{"uuids": {"not": "a list"}}',
      });
      assert.equal(refused.status, 400);
      assert.deepEqual(
        await refused.json().then((body) => {
          const { error_code, field } = body as Record<string, unknown>;
          return { error_code, field };
        }),
        { error_code: 'ERR_BAD_OR_MISSING_FIELD', field: 'uuids' },
      );
      schemas.compileAll();
      assert.equal(schemas.pendingCount, 0);
    });
  });
});
