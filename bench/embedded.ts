/**
 * `npm run bench:embedded`: the embedded platform's own routes (downloads, paged directory,
 * notifications, sessions, preferences, bootstrap) and the token check's cost. In-process: the
 * load generator shares the gateway's process and logging is off, so these figures are only for
 * comparing those routes with one another; `npm run bench` (bench/run.ts) is the honest comparison.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { buildGateway } from '../src/app.ts';
import { loadConfig } from '../src/config/index.ts';
import { TokenVerifier } from '../src/http/auth.ts';
import { loadTrustedKeys, signEmbeddedToken } from '../src/http/keys.ts';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);

interface Row {
  scenario: string;
  'req/s': number;
  'p50 ms': number;
  'p99 ms': number;
  errors: number;
  'MB/s'?: number;
}

async function load(
  scenario: string,
  url: string,
  headers: Record<string, string> = {},
): Promise<Row> {
  const result = await autocannon({ url, headers, connections, duration: seconds });
  const non2xx = result.non2xx + result.errors + result.timeouts;
  const mbPerSecond = Number((result.throughput.average / 1e6).toFixed(1));
  return {
    scenario,
    'req/s': Math.round(result.requests.average),
    'p50 ms': result.latency.p50,
    'p99 ms': result.latency.p99,
    errors: non2xx,
    'MB/s': mbPerSecond,
  };
}

async function verifyCost(dataDir: string): Promise<Row[]> {
  const config = loadConfig({ GATEWAY_DATA_DIR: dataDir });
  const count = 2000;
  const tokens = await Promise.all(
    Array.from({ length: count }, (_, i) => signEmbeddedToken(dataDir, { username: `user${i}` })),
  );
  const verifier = new TokenVerifier(await loadTrustedKeys(config), config.auth);
  const timed = async (scenario: string, run: () => Promise<unknown>): Promise<Row> => {
    const started = process.hrtime.bigint();
    await run();
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    return {
      scenario,
      'req/s': Math.round((count / ms) * 1000),
      'p50 ms': Number((ms / count).toFixed(4)),
      'p99 ms': NaN,
      errors: 0,
    };
  };
  const first = await timed('token verify: signature (ES256)', async () => {
    for (const token of tokens) await verifier.verify(token);
  });
  const cached = await timed('token verify: cached', async () => {
    for (const token of tokens) await verifier.verify(token);
  });
  return [first, cached];
}

/** The embedded platform: a Unix-socket hop to user-info and apps, and the store (SQLite here). */
async function embeddedPlatform(
  dataDir: string,
  limits: Record<string, string>,
  auth: Record<string, string>,
): Promise<Row[]> {
  const gateway = await buildGateway(
    loadConfig({ ...limits, LOG_LEVEL: 'warn', GATEWAY_DATA_DIR: dataDir }),
  );
  await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(gateway.app.server.address() as AddressInfo).port}`;
  try {
    await fetch(`${base}/secured/sessions`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ windowConfigs: [] }),
    });
    const home = '/platform/home/bench';
    const saveAs = (dest: string, content: string) =>
      fetch(`${base}/secured/fileio/saveas`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ dest, content }),
      });
    await fetch(`${base}/secured/bootstrap`, { headers: auth }); // makes the home
    await saveAs(`${home}/one-mib.txt`, 'x'.repeat(1024 * 1024));
    await fetch(`${base}/secured/filesystem/directory/create`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ path: `${home}/listing` }),
    });
    for (let i = 0; i < 500; i++)
      await saveAs(`${home}/listing/file-${String(i).padStart(3, '0')}.txt`, 'x'.repeat(i));
    for (let i = 0; i < 2000; i++) {
      await fetch(`${base}/send-notification`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          type: ['data', 'analysis', 'tool'][i % 3],
          user: 'bench',
          subject: `notification ${i}`,
        }),
      });
    }
    return [
      await load(
        'embedded GET /secured/fileio/download (1 MiB)',
        `${base}/secured/fileio/download?path=${encodeURIComponent(`${home}/one-mib.txt`)}`,
        auth,
      ),
      await load(
        'embedded GET paged-directory (50 of 500, by size desc)',
        `${base}/secured/filesystem/paged-directory?path=${encodeURIComponent(`${home}/listing`)}&limit=50&offset=200&sort-col=SIZE&sort-dir=desc`,
        auth,
      ),
      await load(
        'embedded GET notifications (menu: 10 of 2,000)',
        `${base}/secured/notifications/messages?limit=10&offset=0&sortField=timestamp&sortDir=DESC`,
        auth,
      ),
      await load(
        'embedded GET notifications (filter=analysis, 100 from 300)',
        `${base}/secured/notifications/messages?limit=100&offset=300&filter=analysis`,
        auth,
      ),
      await load(
        'embedded GET count-messages',
        `${base}/secured/notifications/count-messages`,
        auth,
      ),
      await load('embedded GET /secured/sessions', `${base}/secured/sessions`, auth),
      await load('embedded GET /secured/preferences', `${base}/secured/preferences`, auth),
      await load(
        'embedded GET /secured/bootstrap (records a login)',
        `${base}/secured/bootstrap`,
        auth,
      ),
    ];
  } finally {
    await gateway.close();
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'gateway-bench-'));
  const generous = {
    RATE_LIMIT_USER_PER_MIN: '1000000',
    RATE_LIMIT_BURST: '1000000',
    RATE_LIMIT_ANON_PER_MIN: '1000000',
  };
  const rows: Row[] = [];
  try {
    const token = await signEmbeddedToken(dataDir, { username: 'bench' });
    const auth = { authorization: `Bearer ${token}` };
    rows.push(...(await embeddedPlatform(dataDir, generous, auth)));
    rows.push(...(await verifyCost(dataDir)));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`\n${connections} connections, ${seconds} s per scenario, node ${process.version}`);
  console.table(rows);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
