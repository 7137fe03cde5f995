// Literal routes win over parameters: a request to a path the reference lists with a literal segment
// (`/apps/categories/featured`, `/apps/sharing`, `/analyses/permission-lister`, ...) must reach the
// route registered for that literal, never a parameter route that happens to fit it (which answers
// something else entirely, such as "no app featured in system categories"). Fastify prefers a
// static segment only when one is registered, so this walks both route tables: every passthrough
// row (the gateway's copy of routes.md) in the gateway and, for rows an embedded service answers,
// in that service; and the backends.md paths the gateway reaches from its own handlers.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import pino from 'pino';
import { loadConfig } from '../../src/config/index.ts';
import { embeddedBackendNames, isEmbeddedBackend } from '../../src/common/backend-names.ts';
import { buildBackendHost } from '../../src/embedded/host.ts';
import { passthroughRoutes } from '../../src/routes/index.ts';
import { openStore } from '../../src/store/database.ts';
import { startGateway } from '../support/gateway.ts';

/** A placeholder no reference path uses as a literal segment. */
const filler = 'x1';

/**
 * backends.md paths with literal segments beside parameters, which the gateway reaches from its own
 * handlers rather than from a passthrough row of the same path.
 */
const backendReferencePaths: [string, string][] = [
  ['GET apps', '/apps/categories/featured'],
  ['GET apps', '/apps/hierarchies'],
  ['GET apps', '/apps/elements'],
  ['POST apps', '/apps/shredder'],
  ['POST apps', '/apps/permission-lister'],
  ['POST apps', '/apps/sharing'],
  ['POST apps', '/apps/unsharing'],
  ['GET apps', '/analyses/stats'],
  ['POST apps', '/analyses/permission-lister'],
  ['POST apps', '/analyses/relauncher'],
  ['POST apps', '/analyses/sharing'],
  ['POST apps', '/analyses/unsharing'],
  ['POST metadata', '/avus/search'],
  ['POST metadata', '/avus/filter-targets'],
  ['POST metadata', '/avus/deleter'],
  ['POST metadata', '/favorites/filter'],
  ['GET metadata', '/templates/attr/{attr-id}'],
  ['GET data-info', '/navigation/root'],
  ['POST data-info', '/stat-gatherer'],
];

interface Probe {
  method: string;
  path: string;
}

/** The probes of the passthrough rows: each method of each row, at the gateway path or the backend's. */
function rowProbes(where: 'gateway' | 'backend'): (Probe & { backend: string })[] {
  return passthroughRoutes.flatMap((row) =>
    (Array.isArray(row.method) ? row.method : [row.method]).map((method) => ({
      method,
      path: where === 'gateway' ? row.path : (row.backendPath ?? row.path),
      backend: row.backend,
    })),
  );
}

/**
 * Where `router` sends a request to `specPath` with every parameter filled in, the literal segments
 * a parameter caught instead of a route of their own (none: the request reached the literal route,
 * or no route at all, which a partial service answers 501).
 */
function literalsCaughtByParameters(
  router: FastifyInstance,
  method: string,
  prefix: string,
  specPath: string,
): string[] {
  const url = prefix + specPath.replace(/\{[^}]+\}/g, filler);
  const found = router.findRoute({ method: method as HTTPMethods, url });
  if (!found) return [];
  const literals = new Set(
    specPath.split('/').filter((segment) => segment !== '' && !segment.includes('{')),
  );
  return Object.values(found.params as Record<string, string>)
    .flatMap((value) => value.split('/'))
    .filter((segment) => literals.has(segment));
}

function clashes(
  router: FastifyInstance,
  probes: Probe[],
  prefixOf: (probe: Probe) => string,
): string[] {
  const found = probes.flatMap((probe) => {
    const caught = literalsCaughtByParameters(router, probe.method, prefixOf(probe), probe.path);
    return caught.length ? [`${probe.method} ${probe.path} (${caught.join(', ')})`] : [];
  });
  return [...new Set(found)];
}

test('every embedded service routes the literal paths of the reference to their own routes', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'route-clashes-'));
  const config = loadConfig({ GATEWAY_DATA_DIR: dir, LOG_LEVEL: 'silent' });
  const store = await openStore({ dataDir: dir });
  const host = await buildBackendHost({
    names: embeddedBackendNames,
    context: { store, config, notify: async () => true },
    secret: 'x'.repeat(20),
    logger: pino({ level: 'silent' }),
    bodyLimitBytes: 1e6,
    logRequests: false,
  });
  try {
    await host.ready();
    const probes: (Probe & { backend: string })[] = [
      ...rowProbes('backend').filter((probe) =>
        isEmbeddedBackend(probe.backend as Parameters<typeof isEmbeddedBackend>[0]),
      ),
      ...backendReferencePaths.map(([methodAndBackend, specPath]) => {
        const [method, backend] = methodAndBackend.split(' ') as [string, string];
        return { method, backend, path: specPath };
      }),
    ];
    assert.ok(probes.some((probe) => probe.path === '/apps/categories/featured'));
    const found = clashes(
      host,
      probes,
      (probe) => `/${(probe as Probe & { backend: string }).backend}`,
    );
    assert.deepEqual(found, [], 'literal paths answered by a parameter route of the service');
  } finally {
    await host.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the gateway routes the literal paths of the reference to their own routes', async () => {
  const gw = await startGateway();
  try {
    const found = clashes(gw.gateway.app, rowProbes('gateway'), () => '');
    assert.deepEqual(found, [], 'literal paths answered by a parameter route of the gateway');
  } finally {
    await gw.close();
  }
});
