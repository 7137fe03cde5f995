// The OpenAPI document and the docs page: OpenAPI 3 with the spec's security schemes, one tag and a
// summary per operation, every passthrough route and its /secured alias documented with its
// security, ETag revalidation, and the interactive docs at /docs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fastifyPath } from '../../src/http/passthrough.ts';
import { passthroughRoutes } from '../../src/routes/index.ts';
import { allTags } from '../../src/routes/shared/tags.ts';
import { startGateway, type RunningGateway } from '../support/gateway.ts';

interface Operation {
  tags?: string[];
  summary?: string;
  security?: Array<Record<string, string[]>>;
}
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<
      string,
      { type: string; scheme?: string; bearerFormat?: string; in?: string; name?: string }
    >;
  };
};

/** `/apps/:systemId` → `/apps/{systemId}`, the form the document uses. */
const documentPath = (specPath: string) => fastifyPath(specPath).replace(/:(\w+)/g, '{$1}');

describe('OpenAPI', () => {
  let running: RunningGateway;
  let document: Document;

  before(async () => {
    running = await startGateway();
    const response = await fetch(`${running.url}/openapi.json`);
    assert.equal(response.status, 200);
    document = (await response.json()) as Document;
  });
  after(() => running.close());

  test('is OpenAPI 3 with the spec security schemes and the X-Vendor-De-Jwt header', () => {
    assert.match(document.openapi, /^3\./);
    const schemes = document.components.securitySchemes;
    assert.deepEqual([schemes.basic?.type, schemes.basic?.scheme], ['http', 'basic']);
    // An HTTP bearer scheme: the docs page's Authorize dialog takes the bare token.
    assert.deepEqual(
      [schemes.bearer?.type, schemes.bearer?.scheme, schemes.bearer?.bearerFormat],
      ['http', 'bearer', 'JWT'],
    );
    assert.deepEqual(
      [schemes.vendorJwt?.type, schemes.vendorJwt?.in, schemes.vendorJwt?.name],
      ['apiKey', 'header', 'X-Vendor-De-Jwt'],
    );
  });

  test('HTTP Basic is offered only where the spec takes it (the identity provider token routes)', () => {
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        if (/^\/(admin\/)?token(\/|$)/.test(path)) continue;
        assert.ok(
          !op.security?.some((requirement) => 'basic' in requirement),
          `${method.toUpperCase()} ${path} does not offer basic`,
        );
      }
    }
  });

  test('every operation has one tag from the spec list (or misc/operations) and a summary', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ path, method, op })),
    );
    assert.ok(operations.length > 100, `expected the full route table, got ${operations.length}`);
    for (const { path, method, op } of operations) {
      assert.equal(op.tags?.length, 1, `${method} ${path} has one tag`);
      assert.ok(
        allTags.includes(op.tags![0] as never),
        `${method} ${path} tag ${op.tags![0]} is known`,
      );
      assert.ok(op.summary, `${method} ${path} has a summary`);
    }
  });

  test('every passthrough route and its /secured alias is documented with its security', () => {
    for (const route of passthroughRoutes) {
      const methods = (Array.isArray(route.method) ? route.method : [route.method]).map((method) =>
        method.toLowerCase(),
      );
      const paths = route.securedAlias ? [route.path, `/secured${route.path}`] : [route.path];
      for (const path of paths) {
        for (const method of methods) {
          const op = document.paths[documentPath(path)]?.[method];
          assert.ok(op, `${method.toUpperCase()} ${path} is in the document`);
          assert.equal(op.tags?.[0], route.tag);
          if (route.auth === 'none') assert.deepEqual(op.security, []);
          else assert.ok(op.security?.some((requirement) => 'bearer' in requirement));
        }
      }
    }
  });

  test('the gateway routes are documented and unsecured ones say so', () => {
    for (const path of ['/', '/uuid', '/livez', '/readyz', '/metrics', '/openapi.json']) {
      assert.deepEqual(document.paths[path]?.get?.security, [], `${path} needs no credentials`);
    }
  });

  test('the document is sent with an ETag (a revalidation is a 304), the same at /docs/json', async () => {
    const first = await fetch(`${running.url}/openapi.json`);
    const etag = first.headers.get('etag');
    assert.ok(etag, 'an ETag');
    assert.equal(first.headers.get('cache-control'), 'no-cache');
    const body = await first.text();
    assert.deepEqual(JSON.parse(body), document);
    const again = await fetch(`${running.url}/openapi.json`, {
      headers: { 'if-none-match': etag },
    });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    const forThePage = await fetch(`${running.url}/docs/json`);
    assert.equal(forThePage.headers.get('etag'), etag);
    assert.equal(await forThePage.text(), body);
    assert.equal(
      (await fetch(`${running.url}/docs/json`, { headers: { 'if-none-match': `W/${etag}` } }))
        .status,
      304,
    );
  });

  test('interactive docs are served at /docs', async () => {
    const response = await fetch(`${running.url}/docs`, { redirect: 'follow' });
    assert.equal(response.status, 200);
    assert.match(await response.text(), /swagger/i);
  });
});
