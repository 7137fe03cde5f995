// The embedded user-info service over real HTTP, on each engine: bags (default bag, per-user
// privacy, bad bodies) and alerts (active by dates, delete by identity, duplicates); and its rows
// reached through the gateway with the caller qualified.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { backendSecretHeader, buildBackendHost } from '../../../src/embedded/host.ts';
import { loadConfig } from '../../../src/config/index.ts';
import { openStore, type Store } from '../../../src/store/database.ts';
import { startSecuredFixture } from '../../support/fixture.ts';
import { requiredInCi } from '../../support/gateway.ts';
import { pgDatabaseUrl } from '../../support/postgres.ts';

const secret = 'user-info-test-secret';
const uidDomain = 'example.org';

interface Answer {
  status: number;
  json: () => Record<string, unknown>;
  body: string;
}

/** A real host with the real user-info service over a fresh store; `call` speaks to it in-process. */
interface Service {
  call(method: string, url: string, body?: string): Promise<Answer>;
  close(): Promise<void>;
}

async function startService(store: Store, cleanup: () => Promise<void>): Promise<Service> {
  const host: FastifyInstance = await buildBackendHost({
    names: ['user-info'],
    context: { store, config: loadConfig({ UID_DOMAIN: uidDomain }), notify: async () => false },
    secret,
    logger: pino({ level: 'silent' }),
    bodyLimitBytes: 1024 * 1024,
    logRequests: false,
  });
  return {
    call: async (method, url, body) => {
      const response = await host.inject({
        method: method as 'GET',
        url: `/user-info${url}`,
        headers: {
          [backendSecretHeader]: secret,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { payload: body }),
      });
      return {
        status: response.statusCode,
        body: response.body,
        json: () => response.json() as Record<string, unknown>,
      };
    },
    close: async () => {
      await host.close();
      await store.close();
      await cleanup();
    },
  };
}

/** Each engine opens a private database, or answers undefined when it cannot run here. */
const engines: { name: string; open: () => Promise<Service | undefined> }[] = [
  {
    name: 'SQLite',
    open: async () => {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'user-info-'));
      return startService(await openStore({ dataDir }), async () =>
        rmSync(dataDir, { recursive: true, force: true }),
      );
    },
  },
  {
    name: 'PostgreSQL',
    open: async () => {
      const databaseUrl = requiredInCi('DATABASE_URL');
      if (!databaseUrl) return undefined;
      const { url, drop } = await pgDatabaseUrl(databaseUrl);
      return startService(await openStore({ databaseUrl: url, dataDir: tmpdir() }), drop);
    },
  },
];

const json = (value: unknown) => JSON.stringify(value);
const bagsUrl = (user: string) => `/bags/${encodeURIComponent(user)}`;

for (const engine of engines) {
  describe(`user-info service on ${engine.name}`, () => {
    let service: Service | undefined;
    before(async () => {
      service = await engine.open();
    });
    after(async () => service?.close());

    /** Skips when the engine is unavailable (never in CI: requiredInCi throws there). */
    const it = (name: string, body: (s: Service) => Promise<void>) =>
      test(name, async (t) =>
        service ? body(service) : t.skip('DATABASE_URL is not set (CI sets it)'),
      );

    it('bags: HEAD 404 before any bag, PUT, list, get, update and delete by id', async (s) => {
      const user = `alice-${engine.name}@${uidDomain}`;
      assert.equal((await s.call('HEAD', bagsUrl(user))).status, 404);
      assert.deepEqual(
        (await s.call('GET', bagsUrl(user))).json(),
        { bags: [] },
        'an unknown user has no bags',
      );

      const added = await s.call('PUT', bagsUrl(user), json({ files: ['/zone/home/a.txt'] }));
      assert.equal(added.status, 200);
      const { id } = added.json() as { id: string };
      assert.match(id, /^[0-9a-f-]{36}$/);
      assert.equal((await s.call('HEAD', bagsUrl(user))).status, 200);

      const listed = (await s.call('GET', bagsUrl(user))).json() as {
        bags: { id: string; contents: unknown; user_id: string }[];
      };
      assert.equal(listed.bags.length, 1);
      assert.equal(listed.bags[0]!.id, id);
      assert.deepEqual(
        listed.bags[0]!.contents,
        { files: ['/zone/home/a.txt'] },
        'contents come back as JSON, not text',
      );
      assert.equal(typeof listed.bags[0]!.user_id, 'string');

      assert.deepEqual((await s.call('GET', `${bagsUrl(user)}/${id}`)).json(), listed.bags[0]);
      const updated = await s.call('POST', `${bagsUrl(user)}/${id}`, json({ files: [] }));
      assert.equal(updated.status, 200);
      assert.deepEqual(
        updated.json(),
        { ...listed.bags[0], contents: { files: [] } },
        'POST answers the updated bag',
      );
      assert.deepEqual((await s.call('GET', `${bagsUrl(user)}/${id}`)).json().contents, {
        files: [],
      });

      assert.equal((await s.call('DELETE', `${bagsUrl(user)}/${id}`)).status, 200);
      const gone = await s.call('GET', `${bagsUrl(user)}/${id}`);
      assert.equal(gone.status, 404);
      assert.equal(gone.json().error_code, 'ERR_NOT_FOUND');
      assert.equal((await s.call('POST', `${bagsUrl(user)}/${id}`, json({}))).status, 404);
      assert.equal(
        (await s.call('DELETE', `${bagsUrl(user)}/${id}`)).status,
        200,
        'deleting twice is not an error',
      );
      assert.equal((await s.call('HEAD', bagsUrl(user))).status, 404);
    });

    it('bags: DELETE all; a short username is qualified with the uid domain', async (s) => {
      await s.call('PUT', bagsUrl('carol'), json({ n: 1 }));
      await s.call('PUT', bagsUrl(`carol@${uidDomain}`), json({ n: 2 }));
      const listed = (await s.call('GET', bagsUrl(`carol@${uidDomain}`))).json() as {
        bags: { contents: { n: number } }[];
      };
      assert.deepEqual(listed.bags.map((bag) => bag.contents.n).sort(), [1, 2]);
      assert.equal((await s.call('DELETE', bagsUrl('carol'))).status, 200);
      assert.equal((await s.call('HEAD', bagsUrl(`carol@${uidDomain}`))).status, 404);
    });

    it('bags: the default bag is created on first GET, once even under racing requests, then updated and replaced', async (s) => {
      const user = `dora-${engine.name}@${uidDomain}`;
      const racing = await Promise.all(
        Array.from({ length: 6 }, () => s.call('GET', `${bagsUrl(user)}/default`)),
      );
      const ids = new Set(racing.map((answer) => (answer.json() as { id: string }).id));
      assert.equal(ids.size, 1, 'every racing GET sees the same default bag');
      const [defaultId] = ids;
      assert.deepEqual(racing[0]!.json().contents, {});
      assert.equal(
        ((await s.call('GET', bagsUrl(user))).json().bags as unknown[]).length,
        1,
        'the losers left no stray bags',
      );

      const posted = await s.call('POST', `${bagsUrl(user)}/default`, json({ files: ['x'] }));
      assert.deepEqual(posted.json(), {
        id: defaultId,
        contents: { files: ['x'] },
        user_id: racing[0]!.json().user_id,
      });
      assert.deepEqual((await s.call('GET', `${bagsUrl(user)}/default`)).json().contents, {
        files: ['x'],
      });

      const replaced = (await s.call('DELETE', `${bagsUrl(user)}/default`)).json() as {
        id: string;
        contents: unknown;
      };
      assert.notEqual(replaced.id, defaultId, 'DELETE answers a new, empty default');
      assert.deepEqual(replaced.contents, {});
      assert.equal(
        (await s.call('GET', `${bagsUrl(user)}/${defaultId}`)).status,
        404,
        'the old default bag is gone',
      );

      // Deleting the default bag by id also clears the default; the next GET makes another.
      assert.equal((await s.call('DELETE', `${bagsUrl(user)}/${replaced.id}`)).status, 200);
      const next = (await s.call('GET', `${bagsUrl(user)}/default`)).json() as { id: string };
      assert.notEqual(next.id, replaced.id);

      // POST default for a user who has none creates it with the contents sent.
      const fresh = await s.call(
        'POST',
        `${bagsUrl(`erin-${engine.name}@${uidDomain}`)}/default`,
        json({ a: 1 }),
      );
      assert.equal(fresh.status, 200);
      assert.deepEqual(fresh.json().contents, { a: 1 });
    });

    it("bags: one user cannot read, change or delete another's bags", async (s) => {
      const owner = `fay-${engine.name}@${uidDomain}`;
      const other = `gus-${engine.name}@${uidDomain}`;
      const { id } = (await s.call('PUT', bagsUrl(owner), json({ secret: true }))).json() as {
        id: string;
      };
      await s.call('PUT', bagsUrl(other), json({ mine: true }));

      assert.equal((await s.call('GET', `${bagsUrl(other)}/${id}`)).status, 404);
      assert.equal(
        (await s.call('POST', `${bagsUrl(other)}/${id}`, json({ stolen: true }))).status,
        404,
      );
      assert.equal((await s.call('DELETE', `${bagsUrl(other)}/${id}`)).status, 200);
      assert.equal((await s.call('DELETE', bagsUrl(other))).status, 200);

      const kept = await s.call('GET', `${bagsUrl(owner)}/${id}`);
      assert.deepEqual(kept.json().contents, { secret: true }, "the owner's bag is untouched");
      assert.deepEqual((await s.call('GET', bagsUrl(other))).json(), { bags: [] });
    });

    it('bags: bad JSON → 400 ERR_INVALID_JSON; a non-object → 400 ERR_BAD_OR_MISSING_FIELD; nothing stored', async (s) => {
      const user = `hal-${engine.name}@${uidDomain}`;
      for (const [method, url] of [
        ['PUT', bagsUrl(user)],
        ['POST', `${bagsUrl(user)}/default`],
      ] as const) {
        const broken = await s.call(method, url, '{"files": [');
        assert.equal(broken.status, 400);
        assert.equal(broken.json().error_code, 'ERR_INVALID_JSON');
        const array = await s.call(method, url, '[1, 2]');
        assert.equal(array.status, 400);
        assert.deepEqual(
          [array.json().error_code, array.json().field],
          ['ERR_BAD_OR_MISSING_FIELD', 'contents'],
        );
      }
      const empty = await s.call('PUT', bagsUrl(user));
      assert.equal(
        empty.json().error_code,
        'ERR_INVALID_JSON',
        'no body at all is not JSON either',
      );
      assert.equal((await s.call('HEAD', bagsUrl(user))).status, 404);
    });

    it('alerts: POST 201, all vs active by dates, ordered by end date, in RFC 3339', async (s) => {
      const day = 24 * 60 * 60 * 1000;
      const at = (offsetDays: number) => new Date(Date.now() + offsetDays * day).toISOString();
      const alerts = [
        { start_date: at(-10), end_date: at(-5), alert: 'ended' },
        { end_date: at(3), alert: 'open start' },
        { start_date: at(-1), end_date: at(2), alert: 'running' },
        { start_date: at(1), end_date: at(4), alert: 'future' },
      ];
      for (const alert of alerts) {
        const created = await s.call('POST', '/alerts', json(alert));
        assert.equal(created.status, 201, created.body);
        assert.equal(created.body, '');
      }
      const expected = (names: string[]) =>
        alerts
          .filter((alert) => names.includes(alert.alert))
          .sort((a, b) => a.end_date.localeCompare(b.end_date))
          .map((alert) => ({
            start_date: alert.start_date ?? null,
            end_date: alert.end_date,
            alert: alert.alert,
          }));
      // Other tests' alerts share the table: look only at this test's.
      const ours = async (url: string) =>
        ((await s.call('GET', url)).json().alerts as { alert: string }[]).filter((alert) =>
          alerts.some((mine) => mine.alert === alert.alert),
        );
      assert.deepEqual(
        await ours('/alerts/all'),
        expected(['ended', 'open start', 'running', 'future']),
      );
      assert.deepEqual(await ours('/alerts/active'), expected(['open start', 'running']));
    });

    it('alerts: DELETE by identity (end_date + alert), whatever offset the date is written in', async (s) => {
      await s.call(
        'POST',
        '/alerts',
        json({ end_date: '2031-01-01T02:00:00+02:00', alert: 'maintenance' }),
      );
      await s.call(
        'POST',
        '/alerts',
        json({ end_date: '2032-01-01T00:00:00Z', alert: 'maintenance' }),
      );
      const stored = (
        (await s.call('GET', '/alerts/all')).json().alerts as { end_date: string; alert: string }[]
      ).filter((alert) => alert.alert === 'maintenance');
      assert.deepEqual(
        stored.map((alert) => alert.end_date),
        ['2031-01-01T00:00:00.000Z', '2032-01-01T00:00:00.000Z'],
      );

      const deleted = await s.call(
        'DELETE',
        '/alerts',
        json({ end_date: '2031-01-01T00:00:00Z', alert: 'maintenance' }),
      );
      assert.equal(deleted.status, 200);
      const left = (
        (await s.call('GET', '/alerts/all')).json().alerts as { end_date: string; alert: string }[]
      ).filter((alert) => alert.alert === 'maintenance');
      assert.deepEqual(
        left.map((alert) => alert.end_date),
        ['2032-01-01T00:00:00.000Z'],
        'only the alert with that end date went',
      );
    });

    it('alerts: duplicate → 400 ERR_EXISTS; bad or missing fields → 400 naming the field', async (s) => {
      const alert = { end_date: '2033-05-01T00:00:00Z', alert: 'duplicate me' };
      assert.equal((await s.call('POST', '/alerts', json(alert))).status, 201);
      const again = await s.call(
        'POST',
        '/alerts',
        json({ ...alert, start_date: '2033-01-01T00:00:00Z' }),
      );
      assert.equal(again.status, 400);
      assert.equal(again.json().error_code, 'ERR_EXISTS');

      const cases: [unknown, string][] = [
        [{ alert: 'no end' }, 'end_date'],
        [{ end_date: '2033-02-30T00:00:00Z', alert: 'no such day' }, 'end_date'],
        [{ end_date: '2033-01-01', alert: 'date only' }, 'end_date'],
        [{ end_date: 1_900_000_000_000, alert: 'epoch number' }, 'end_date'],
        [{ end_date: '2033-01-01T00:00:00Z' }, 'alert'],
        [{ end_date: '2033-01-01T00:00:00Z', alert: '' }, 'alert'],
        [
          { start_date: 'soon', end_date: '2033-01-01T00:00:00Z', alert: 'bad start' },
          'start_date',
        ],
        [
          {
            start_date: '2033-02-01T00:00:00Z',
            end_date: '2033-01-01T00:00:00Z',
            alert: 'ends first',
          },
          'end_date',
        ],
      ];
      for (const [body, field] of cases) {
        const refused = await s.call('POST', '/alerts', json(body));
        assert.equal(refused.status, 400, json(body));
        assert.deepEqual(
          [refused.json().error_code, refused.json().field],
          ['ERR_BAD_OR_MISSING_FIELD', field],
          json(body),
        );
      }
      const broken = await s.call('POST', '/alerts', '{"alert":');
      assert.deepEqual([broken.status, broken.json().error_code], [400, 'ERR_INVALID_JSON']);
      const noEnd = await s.call('DELETE', '/alerts', json({ alert: 'duplicate me' }));
      assert.deepEqual([noEnd.status, noEnd.json().field], [400, 'end_date']);
    });
  });
}

describe('user-info through the gateway', () => {
  test('the bags and alerts rows reach the embedded service with the caller qualified', async () => {
    const fixture = await startSecuredFixture(() => ({ UID_DOMAIN: uidDomain }));
    try {
      const token = await fixture.tokenFor('ivy');
      const call = (method: string, url: string, body?: unknown) =>
        fetch(`${fixture.running.url}${url}`, {
          method,
          headers: {
            authorization: `Bearer ${token}`,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(body === undefined ? {} : { body: json(body) }),
        });
      assert.equal((await call('HEAD', '/bags')).status, 404);
      const { id } = (await (await call('PUT', '/bags', { files: [] })).json()) as { id: string };
      assert.equal((await call('HEAD', '/bags')).status, 200);
      assert.deepEqual(
        ((await (await call('GET', `/bags/${id}`)).json()) as { contents: unknown }).contents,
        { files: [] },
      );
      const defaultBag = (await (await call('GET', '/bags/default')).json()) as { id: string };
      assert.notEqual(defaultBag.id, id);
      const alerts = await call('GET', '/alerts/active');
      assert.equal(alerts.status, 200);
      assert.deepEqual(await alerts.json(), { alerts: [] });
    } finally {
      await fixture.close();
    }
  });
});
