// The data search through the gateway (routes.md §26): `POST /filesystem/search` and
// `GET /filesystem/search-documentation`, signed in and anonymous, answered by the embedded search
// service on each engine (only what the caller can read), `/secured` twins requiring a user, and
// forwarded to the real search service when SEARCH_URL is set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSecuredFixture, type SecuredFixture } from '../support/fixture.ts';
import { noRateLimits, startGateway, type RunningGateway } from '../support/gateway.ts';
import { engineDatabase, engines, skipWithout } from '../support/postgres.ts';
import {
  bearer,
  createSigningKey,
  signToken,
  startJwksServer,
  userClaims,
  type JwksServer,
  type SigningKey,
} from '../support/tokens.ts';

const labelQuery = (label: string) => ({
  query: { all: [{ type: 'label', args: { label, exact: false } }] },
  size: 10,
  from: 0,
  sort: [{ field: 'label', order: 'ascending' }],
});

for (const engine of engines) {
  describe(
    `data search on the embedded platform (${engine})`,
    { skip: skipWithout(engine) },
    () => {
      let key: SigningKey;
      let jwks: JwksServer;
      let running: RunningGateway;
      let database: Awaited<ReturnType<typeof engineDatabase>>;
      before(async () => {
        key = await createSigningKey('ES256', 'search-key');
        jwks = await startJwksServer([key]);
        database = await engineDatabase(engine);
        running = await startGateway({
          ...noRateLimits,
          AUTH_JWKS_URL: jwks.url,
          DATA_ZONE: 'lab',
          ...database.env,
        });
      });
      after(async () => {
        await running?.close();
        await jwks?.close();
        await database?.drop();
      });

      const call = async (user: string | undefined, path: string, body?: unknown) => {
        const headers: Record<string, string> = user
          ? bearer(await signToken(key, userClaims(user)))
          : {};
        if (body !== undefined) headers['content-type'] = 'application/json';
        const response = await fetch(`${running.url}${path}`, {
          method: body === undefined ? 'GET' : 'POST',
          headers,
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return { status: response.status, body: (await response.json()) as any };
      };

      test('signed in, a user finds their own folder; another user and the anonymous caller do not', async () => {
        const made = await call('alice', '/secured/filesystem/directory/create', {
          path: '/lab/home/alice/kestrel-survey',
        });
        assert.equal(made.status, 200, JSON.stringify(made.body));
        const found = await call('alice', '/filesystem/search', labelQuery('kestrel'));
        assert.equal(found.status, 200, JSON.stringify(found.body));
        assert.equal(found.body.total, 1);
        assert.equal(found.body.hits[0]._type, 'folder');
        assert.equal(found.body.hits[0]._source.path, '/lab/home/alice/kestrel-survey');
        assert.equal(found.body.hits[0]._source.label, 'kestrel-survey');
        const secured = await call('alice', '/secured/filesystem/search', labelQuery('kestrel'));
        assert.equal(secured.body.total, 1);

        assert.deepEqual(await call('bob', '/filesystem/search', labelQuery('kestrel')), {
          status: 200,
          body: { total: 0, total_relation: 'eq', hits: [] },
        });
        assert.deepEqual(await call(undefined, '/filesystem/search', labelQuery('kestrel')), {
          status: 200,
          body: { total: 0, total_relation: 'eq', hits: [] },
        });
        const refused = await call(undefined, '/secured/filesystem/search', labelQuery('kestrel'));
        assert.equal(refused.status, 401);
      });

      test('the documentation, for anyone; a bad query is a 400 with an error code', async () => {
        const docs = await call(undefined, '/filesystem/search-documentation');
        assert.equal(docs.status, 200);
        assert.ok(docs.body.clauses.label);
        assert.ok(docs.body.sortFields.includes('dateModified'));
        const bad = await call('alice', '/filesystem/search', {
          query: { all: [{ type: 'size', args: {} }] },
        });
        assert.equal(bad.status, 400);
        assert.equal(bad.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      });
    },
  );
}

describe('data search with SEARCH_URL set', () => {
  let fixture: SecuredFixture;
  before(async () => {
    fixture = await startSecuredFixture((url) => ({ SEARCH_URL: url }));
  });
  after(async () => fixture?.close());

  test('forwards to the search service: /data/search with the caller, /data/documentation', async () => {
    const token = await fixture.tokenFor('alice');
    const response = await fetch(`${fixture.running.url}/filesystem/search`, {
      method: 'POST',
      headers: { ...bearer(token), 'content-type': 'application/json' },
      body: JSON.stringify(labelQuery('kestrel')),
    });
    assert.equal(response.status, 200);
    const forwarded = fixture.backend.requests.at(-1)!;
    assert.equal(forwarded.method, 'POST');
    assert.equal(forwarded.path, '/data/search');
    assert.equal(forwarded.query.get('user'), 'alice');
    assert.deepEqual(JSON.parse(forwarded.body.toString()), labelQuery('kestrel'));

    const docs = await fetch(`${fixture.running.url}/filesystem/search-documentation`);
    assert.equal(docs.status, 200);
    assert.equal(fixture.backend.requests.at(-1)!.path, '/data/documentation');
  });
});
