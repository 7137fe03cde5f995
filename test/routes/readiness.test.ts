// /readyz answers within its budget. Each check (database, Redis when REDIS_URL is set, remote
// backends) has READINESS_TIMEOUT_MS: a stalled (blackholed) database or an unreachable Redis makes
// /readyz answer 503 {error_code, reason, checks} naming it, at once, instead of hanging; healthy
// dependencies answer 200 with a check for each.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/index.ts';
import { requiredInCi, startGateway } from '../support/gateway.ts';
import { pgDatabaseUrl } from '../support/postgres.ts';
import { tally, testFile } from '../support/reliability.ts';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts';

const databaseUrl = requiredInCi('DATABASE_URL');
const redisUrl = requiredInCi('REDIS_URL');

/** Small so that a stalled check shows at once; the default is 2 s. */
const budgetMs = 300;
/** What a request may take beyond the budget: the HTTP round trip on a busy test machine. */
const slackMs = 700;

interface Readiness {
  status: number;
  body: { status?: string; error_code?: string; reason?: string; checks: Record<string, string> };
  ms: number;
}

async function readyz(url: string): Promise<Readiness> {
  const started = performance.now();
  const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) });
  return {
    status: response.status,
    body: (await response.json()) as Readiness['body'],
    ms: performance.now() - started,
  };
}

/** `url` with its host and port replaced by the proxy's. */
function through(proxy: TcpProxy, url: string): string {
  const proxied = new URL(url);
  proxied.hostname = proxy.host;
  proxied.port = String(proxy.port);
  return proxied.toString();
}

const endpoint = (url: string, defaultPort: number) => ({
  host: new URL(url).hostname,
  port: Number(new URL(url).port || defaultPort),
});

/** The report's row of a test (docs/reliability.md): the /readyz requests sent from the fault on. */
const outageCases = (t: { after(fn: () => void): void }, what: string) =>
  tally(t, { area: 'faults', what, file: testFile(import.meta.url) });

describe('READINESS_TIMEOUT_MS', () => {
  test('defaults to 2 s; refuses what is not a whole number of ms from 10 to 60000', () => {
    assert.equal(loadConfig({}).readinessTimeoutMs, 2_000);
    assert.equal(loadConfig({ READINESS_TIMEOUT_MS: '10' }).readinessTimeoutMs, 10);
    for (const bad of ['0', '9', '60001', 'soon', '1.5'])
      assert.throws(() => loadConfig({ READINESS_TIMEOUT_MS: bad }), /READINESS_TIMEOUT_MS/);
  });
});

describe(
  '/readyz',
  { skip: databaseUrl && redisUrl ? false : 'DATABASE_URL and REDIS_URL are not set' },
  () => {
    let pgDatabase: Awaited<ReturnType<typeof pgDatabaseUrl>>;
    before(async () => {
      pgDatabase = await pgDatabaseUrl(databaseUrl!);
    });
    after(async () => {
      await pgDatabase?.drop();
    });

    for (const engine of ['sqlite', 'postgres'] as const) {
      test(`healthy (${engine} and Redis): 200 with a check for each`, async () => {
        const running = await startGateway({
          REDIS_URL: redisUrl,
          READINESS_TIMEOUT_MS: String(budgetMs),
          ...(engine === 'postgres' ? { DATABASE_URL: pgDatabase.url } : {}),
        });
        try {
          const ready = await readyz(running.url);
          assert.deepEqual(
            [ready.status, ready.body],
            [200, { status: 'ready', checks: { database: 'ok', redis: 'ok' } }],
          );
        } finally {
          await running.close();
        }
      });
    }

    test('a stalled database: 503 naming it within the budget, then ready again', async (t) => {
      const cases = outageCases(
        t,
        `a blackholed PostgreSQL database (its own timeouts 30 s): /readyz answers 503 naming it within its budget (READINESS_TIMEOUT_MS, ${budgetMs} ms), then ready again once it is back`,
      );
      const proxy = await startTcpProxy(endpoint(databaseUrl!, 5432));
      // The database's own bounds are far longer than the budget: the check's timeout must answer.
      const running = await startGateway({
        DATABASE_URL: through(proxy, pgDatabase.url),
        DATABASE_CONNECT_TIMEOUT_MS: '30000',
        DATABASE_QUERY_TIMEOUT_MS: '30000',
        REDIS_URL: redisUrl,
        READINESS_TIMEOUT_MS: String(budgetMs),
      });
      try {
        assert.equal((await readyz(running.url)).status, 200);
        proxy.blackhole();
        cases.tried += 1;
        const stalled = await readyz(running.url);
        t.diagnostic(`readyz with a blackholed database: ${Math.round(stalled.ms)} ms`);
        assert.equal(stalled.status, 503);
        assert.equal(stalled.body.error_code, 'ERR_UNAVAILABLE');
        assert.equal(stalled.body.reason, 'Not ready: database');
        assert.equal(stalled.body.checks.database, `unavailable: no answer within ${budgetMs} ms`);
        assert.equal(stalled.body.checks.redis, 'ok');
        assert.ok(stalled.ms < budgetMs + slackMs, `readyz took ${Math.round(stalled.ms)} ms`);
        cases.held += 1;
        await proxy.restore();
        // The stalled probe's connection is cut by the restore; the next probe connects afresh.
        cases.tried += 1;
        assert.deepEqual((await readyz(running.url)).body.checks, { database: 'ok', redis: 'ok' });
        cases.held += 1;
      } finally {
        await proxy.restore();
        await running.close();
        await proxy.close();
      }
    });

    for (const outage of ['refuse', 'blackhole'] as const) {
      test(`Redis unreachable (${outage}): 503 naming redis within the budget`, async (t) => {
        const cases = outageCases(
          t,
          `Redis ${outage === 'refuse' ? 'refusing connections' : 'blackholed (connections accepted, never a byte back)'}: /readyz answers 503 naming it within its budget (READINESS_TIMEOUT_MS, ${budgetMs} ms)`,
        );
        const proxy = await startTcpProxy(endpoint(redisUrl!, 6379));
        const running = await startGateway({
          REDIS_URL: through(proxy, redisUrl!),
          REDIS_COMMAND_TIMEOUT_MS: '5000',
          READINESS_TIMEOUT_MS: String(budgetMs),
        });
        try {
          assert.equal((await readyz(running.url)).status, 200);
          if (outage === 'refuse') await proxy.refuse();
          else proxy.blackhole();
          cases.tried += 1;
          const down = await readyz(running.url);
          t.diagnostic(`readyz with Redis ${outage}d: ${Math.round(down.ms)} ms`);
          assert.equal(down.status, 503);
          assert.equal(down.body.error_code, 'ERR_UNAVAILABLE');
          assert.equal(down.body.reason, 'Not ready: redis');
          assert.equal(down.body.checks.database, 'ok');
          assert.match(down.body.checks.redis ?? '', /^unavailable: /);
          assert.ok(down.ms < budgetMs + slackMs, `readyz took ${Math.round(down.ms)} ms`);
          cases.held += 1;
        } finally {
          await proxy.restore();
          await running.close();
          await proxy.close();
        }
      });
    }
  },
);
