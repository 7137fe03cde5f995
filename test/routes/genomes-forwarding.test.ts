// The gateway's side of the genome service (routes.md §15) against a recording stand-in
// (GENOMESVC_URL): the backend paths and bodies, the caller's identity in a token the gateway
// signs (`X-Vendor-De-Jwt`: sub, email, given_name, family_name, name; 300 s) that the gateway
// itself never accepts, and the error mapping 400 → ERR_BAD_REQUEST, 404 → ERR_NOT_FOUND, other →
// 500 ERR_REQUEST_FAILED with the service's reason.
import assert from 'node:assert/strict';
import { createPublicKey, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { decodeProtectedHeader, jwtVerify } from 'jose';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { startDataStoreGateway, type DataStoreGateway } from '../support/data-store.ts';
import { bearer } from '../support/tokens.ts';

const json =
  (status: number, body: unknown) =>
  (_request: unknown, response: import('node:http').ServerResponse) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };

describe('genome service routes against a stand-in service', () => {
  let service: TestBackend;
  let gw: DataStoreGateway;
  before(async () => {
    service = await startBackend(json(200, { genomes: [] }));
    gw = (await startDataStoreGateway({ env: { GENOMESVC_URL: `${service.url}/gs` } }))!;
  });
  after(async () => {
    await gw?.close();
    await service?.close();
  });

  /** The token of the last call the stand-in received. */
  const lastToken = () => service.requests.at(-1)!.headers['x-vendor-de-jwt'] as string;

  test('each route reaches its backend path with the caller in a gateway-signed 300 s token', async () => {
    const publicKey = createPublicKey(
      createPrivateKey(
        readFileSync(path.join(gw.running.dataDir, 'auth', 'service-token-key.pem')),
      ),
    );
    const userToken = (await gw.authHeaders('alice')).authorization!.replace(/^Bearer /, '');

    const sentAt = Math.floor(Date.now() / 1000);
    await gw.ok('alice', 'GET', '/genomesvc/genomes?search=e%20coli');
    const search = service.requests.at(-1)!;
    assert.equal(search.method, 'GET');
    assert.equal(search.path, '/gs/genomes/search/e%20coli');
    assert.equal(search.query.get('user'), null, 'no identity parameters');
    assert.equal(
      search.headers.authorization,
      undefined,
      "the caller's own token stays at the gateway",
    );

    const token = lastToken();
    assert.notEqual(token, userToken);
    assert.equal(decodeProtectedHeader(token).alg, 'ES256');
    const { payload } = await jwtVerify(token, publicKey, {
      audience: 'genomesvc',
      issuer: 'platform-gateway',
    });
    assert.deepEqual(
      {
        sub: payload.sub,
        email: payload.email,
        given_name: payload.given_name,
        family_name: payload.family_name,
        name: payload.name,
      },
      {
        sub: 'alice',
        email: 'alice@example.org',
        given_name: 'Alice',
        family_name: 'Tester',
        name: 'alice Tester',
      },
    );
    assert.equal(payload.exp! - payload.iat!, 300);
    assert.ok(
      payload.iat! >= sentAt - 1 && payload.exp! <= Math.floor(Date.now() / 1000) + 300,
      'expires within 300 s of the call',
    );

    // The service's token is no user token: the gateway refuses it in either header.
    for (const headers of [bearer(token), { 'x-vendor-de-jwt': token }]) {
      const replayed = await fetch(`${gw.url}/secured/bootstrap`, { headers });
      assert.equal(replayed.status, 401);
    }

    service.handle(
      json(200, {
        id: 'g-1',
        success: true,
        site_url: 'https://genomes.example.org/GenomeInfo.pl?gid=1',
      }),
    );
    const loaded = await gw.ok('bob', 'POST', '/genomesvc/genomes/load', {
      json: { paths: ['/platform/home/bob/a.fa', '/platform/home/bob/b.fa'] },
    });
    assert.deepEqual(loaded, {
      genomesvc_genome_url: 'https://genomes.example.org/GenomeInfo.pl?gid=1',
    });
    const put = service.requests.at(-1)!;
    assert.equal(put.method, 'PUT');
    assert.equal(put.path, '/gs/genomes');
    assert.deepEqual(JSON.parse(put.body.toString()), {
      source_data: [
        { type: 'data-store', path: '/platform/home/bob/a.fa' },
        { type: 'data-store', path: '/platform/home/bob/b.fa' },
      ],
    });
    assert.equal(
      (await jwtVerify(lastToken(), publicKey, { audience: 'genomesvc' })).payload.sub,
      'bob',
    );

    service.handle(json(200, { id: 77, success: true }));
    for (const [query, parameters] of [
      ['', { genome_id: '123', dest_type: 'data-store', overwrite: 0 }],
      [
        '?notify=true&overwrite=true',
        { genome_id: '123', dest_type: 'data-store', overwrite: 1, email: 'alice@example.org' },
      ],
      [
        '?NOTIFY=false&overwrite=false',
        { genome_id: '123', dest_type: 'data-store', overwrite: 0 },
      ],
    ] as const) {
      assert.deepEqual(
        await gw.ok('alice', 'POST', `/genomesvc/genomes/123/export-fasta${query}`),
        { id: 77, success: true },
        query,
      );
      const job = service.requests.at(-1)!;
      assert.equal(job.method, 'PUT');
      assert.equal(job.path, '/gs/jobs');
      assert.deepEqual(
        JSON.parse(job.body.toString()),
        { type: 'export_fasta', parameters },
        query,
      );
    }
  });

  test('bad input is refused before the service is called', async () => {
    const calls = service.requests.length;
    for (const [method, route, body] of [
      ['GET', '/genomesvc/genomes?search=ab', undefined],
      ['GET', '/genomesvc/genomes', undefined],
      ['POST', '/genomesvc/genomes/load', {}],
      ['POST', '/genomesvc/genomes/load', { paths: [] }],
      ['POST', '/genomesvc/genomes/load', { paths: [''] }],
      ['POST', '/genomesvc/genomes/1/export-fasta?overwrite=maybe', undefined],
    ] as const) {
      const answer = await gw.call(
        'alice',
        method,
        route,
        body === undefined ? {} : { json: body },
      );
      assert.equal(answer.status, 400, `${method} ${route} ${JSON.stringify(body)}`);
      assert.match(answer.body.error_code, /^ERR_/);
    }
    const anonymous = await gw.call(null, 'GET', '/genomesvc/genomes?search=abc');
    assert.equal(anonymous.status, 401);
    assert.equal(service.requests.length, calls);
  });

  test("the service's errors: 400 → ERR_BAD_REQUEST, 404 → ERR_NOT_FOUND, others → 500 ERR_REQUEST_FAILED, with its reason", async () => {
    const cases: [number, string, string, number, string, string][] = [
      [400, 'text/plain', 'organism is required', 400, 'ERR_BAD_REQUEST', 'organism is required'],
      [
        404,
        'application/json',
        JSON.stringify({ error_code: 'ERR_GONE', reason: 'no such genome' }),
        404,
        'ERR_NOT_FOUND',
        'no such genome',
      ],
      [500, 'text/plain', 'database is down', 500, 'ERR_REQUEST_FAILED', 'database is down'],
      [
        403,
        'application/json',
        JSON.stringify({ message: 'not yours' }),
        500,
        'ERR_REQUEST_FAILED',
        'not yours',
      ],
      [502, 'text/plain', '', 500, 'ERR_REQUEST_FAILED', 'The genome service answered 502.'],
    ];
    for (const [status, type, body, expectedStatus, code, reason] of cases) {
      service.handle((_request, response) => {
        response.writeHead(status, { 'content-type': type });
        response.end(body);
      });
      for (const [method, route, json] of [
        ['GET', '/genomesvc/genomes?search=abc', undefined],
        ['POST', '/genomesvc/genomes/load', { paths: ['/platform/home/alice/a.fa'] }],
        ['POST', '/genomesvc/genomes/9/export-fasta', undefined],
      ] as const) {
        const answer = await gw.call('alice', method, route, json === undefined ? {} : { json });
        assert.equal(answer.status, expectedStatus, `${status} ${route}`);
        assert.equal(answer.body.error_code, code, `${status} ${route}`);
        assert.equal(answer.body.reason, reason, `${status} ${route}`);
      }
    }

    // A service that cannot be reached is unavailable, not a failed request.
    const url = service.url;
    await service.close();
    const down = await gw.call('alice', 'GET', '/genomesvc/genomes?search=abc');
    assert.equal(down.status, 503, url);
    assert.equal(down.body.error_code, 'ERR_UNAVAILABLE');
  });
});
