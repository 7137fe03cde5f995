// Administrators' view of the gateway itself (routes.md §24): `GET /admin/config`, the effective
// configuration with every secret masked, and `GET /admin/status`, the health of each dependency
// (the checks of `/readyz`, plus how each backend is served).
import { Type } from 'typebox';
import type { FastifyInstance } from 'fastify';
import { backendNames, embeddedStandIns, type BackendName } from '../../common/backend-names.ts';
import { routeSecurity } from '../../http/openapi.ts';
import { dependencyChecks } from '../shared/dependency-checks.ts';
import type { AreaDeps } from '../shared/area.ts';
import { maskConfig } from './masked-config.ts';

const BackendHealth = Type.Object({
  mode: Type.Union([Type.Literal('remote'), Type.Literal('embedded'), Type.Literal('absent')], {
    description:
      '`remote`: its URL is set; `embedded`: served in-process from the database; `absent`: neither (its routes answer 501)',
  }),
  healthy: Type.Boolean(),
  detail: Type.String({ description: '`ok`, or why not' }),
});

const StatusSchema = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  database: Type.Boolean(),
  redis: Type.Optional(Type.Boolean({ description: 'Present when REDIS_URL is set' })),
  backends: Type.Record(Type.String(), BackendHealth),
  checks: Type.Record(Type.String(), Type.String(), {
    description: 'What `/readyz` checks, each `ok` or why not',
  }),
  datastore: Type.Boolean({ description: 'The data-info service (legacy field)' }),
  jex: Type.Boolean({ description: 'The analyses service, which runs jobs (legacy field)' }),
  apps: Type.Boolean(),
  notificationagent: Type.Boolean({ description: 'The notification agent (legacy field)' }),
  pidprovider: Type.Boolean({
    description: 'PIDPROVIDER_URL answers, or identifiers are minted by the gateway (legacy field)',
  }),
});

type BackendHealthView = {
  mode: 'remote' | 'embedded' | 'absent';
  healthy: boolean;
  detail: string;
};

function backendHealth(
  deps: AreaDeps,
  checks: Record<string, string>,
): Record<BackendName, BackendHealthView> {
  const embedded = new Set<string>(deps.config.embeddedBackends);
  const entries = backendNames.map((name): [BackendName, BackendHealthView] => {
    if (deps.remoteBackends.includes(name)) {
      const detail = checks[name] ?? 'unchecked';
      return [name, { mode: 'remote', healthy: detail === 'ok', detail }];
    }
    const standIn = embeddedStandIns[name];
    if (embedded.has(name) || (standIn && embedded.has(standIn))) {
      // Embedded services live in this process and keep their state in the database.
      const detail = checks.database ?? 'unchecked';
      return [name, { mode: 'embedded', healthy: detail === 'ok', detail }];
    }
    return [name, { mode: 'absent', healthy: false, detail: 'no URL and no embedded service' }];
  });
  return Object.fromEntries(entries) as Record<BackendName, BackendHealthView>;
}

export async function adminGatewayRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  app.get('/admin/config', {
    config: { auth: 'admin' },
    schema: {
      tags: ['admin'],
      summary: 'The effective configuration, every secret masked',
      description:
        'Secrets (by field name: secrets, passwords, keys, tokens, credentials; raw key material; the password and secret-named query parameters of URLs) read `********`.',
      security: routeSecurity('admin'),
      response: { 200: Type.Object({}, { additionalProperties: true }) },
    },
    handler: async () => maskConfig(deps.config),
  });

  app.get('/admin/status', {
    config: { auth: 'admin' },
    schema: {
      tags: ['admin'],
      summary: "Each dependency's health",
      description:
        'The database, Redis and the S3 bucket of file bytes (when configured) and every backend with a URL are probed as `/readyz` does (each within READINESS_TIMEOUT_MS); embedded backends share the database. Answers 200 whatever the outcome.',
      security: routeSecurity('admin'),
      response: { 200: StatusSchema },
    },
    handler: async () => {
      const checks = await dependencyChecks(deps);
      const backends = backendHealth(deps, checks);
      const pidMinted = backends.pidprovider.mode === 'absent' && checks.database === 'ok';
      return {
        status: Object.values(checks).every((detail) => detail === 'ok') ? 'ok' : 'degraded',
        database: checks.database === 'ok',
        ...(checks.redis === undefined ? {} : { redis: checks.redis === 'ok' }),
        backends,
        checks,
        datastore: backends['data-info'].healthy,
        jex: backends.analyses.healthy,
        apps: backends.apps.healthy,
        notificationagent: backends['notification-agent'].healthy,
        pidprovider: backends.pidprovider.healthy || pidMinted,
      };
    },
  });
}
