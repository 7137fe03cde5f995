// Every route of the reference (routes.md, as test/fixtures/routes.json) is served and documented:
// a request to each (method, path), parameters filled in and no credentials, reaches a route of the
// gateway (whatever it answers: 401, 400, a backend's 404 about a missing resource), never the
// router's "unrecognized service path"; and /openapi.json has an operation for that method at that
// path.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startGateway, type RunningGateway } from '../support/gateway.ts';
import { pathShape, referenceRoutes, type OpenApiDocument } from '../support/route-reference.ts';

const routes = referenceRoutes();
const key = (route: { method: string; path: string }) => `${route.method} ${route.path}`;

describe('the route reference, walked', () => {
  let running: RunningGateway;
  let documented: Map<string, Set<string>>;

  before(async () => {
    running = await startGateway();
    const document = (await (await fetch(`${running.url}/openapi.json`)).json()) as OpenApiDocument;
    documented = new Map();
    for (const [path, operations] of Object.entries(document.paths))
      documented.set(pathShape(path), new Set(Object.keys(operations)));
  });
  after(() => running.close());

  test('the fixture holds the whole reference', () => {
    assert.ok(routes.length > 500, `${routes.length} (method, path) pairs`);
  });

  test('every route is served by the gateway', async (t) => {
    const unserved: string[] = [];
    for (const route of routes) {
      const url = running.url + route.path.replace(/\{[^}]+\}/g, 'x1');
      const response = await fetch(url, { method: route.method });
      const text = await response.text();
      const routerAnswer =
        (response.status === 404 && text.includes('unrecognized service path')) ||
        response.status === 405;
      if (routerAnswer) unserved.push(key(route));
    }
    const served = routes.length - unserved.length;
    t.diagnostic(`routes.md: ${served} of ${routes.length} (method, path) pairs served`);
    assert.deepEqual(unserved, [], 'routes of the reference the gateway does not serve');
  });

  test('every route is in /openapi.json with its method', (t) => {
    const undocumented = routes
      .filter((route) => !documented.get(pathShape(route.path))?.has(route.method.toLowerCase()))
      .map(key);
    t.diagnostic(
      `routes.md: ${routes.length - undocumented.length} of ${routes.length} (method, path) pairs documented`,
    );
    assert.deepEqual(undocumented, [], 'routes of the reference missing from the OpenAPI document');
  });
});
