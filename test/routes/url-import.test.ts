// URL import (/secured/fileio/urlupload): the SSRF guard, imports landing byte for byte with their
// notification and every listed error (on SQLite and PostgreSQL), refusals on this network by
// default, and a data store failing while an import starts.
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { isForbiddenAddress, OutboundError, outboundGet } from '../../src/common/outbound-fetch.ts';
import { startBackend, type RecordedRequest, type TestBackend } from '../support/backend.ts';
import {
  eventually,
  randomContent,
  startFileioGateway,
  type FileioGateway,
} from '../support/fileio.ts';
import { engineDatabase, engines, skipWithout } from '../support/postgres.ts';

/** A file server standing in for the internet, on loopback. */
interface Source {
  url: string;
  hits: string[];
  close(): Promise<void>;
}

async function startSource(
  routes: Record<string, (response: ServerResponse) => void>,
): Promise<Source> {
  const hits: string[] = [];
  const server: Server = createServer((request, response) => {
    hits.push(request.url ?? '');
    const route = routes[(request.url ?? '').split('?')[0]!];
    if (route) route(response);
    else {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const payload = randomContent(300 * 1024);
const big = randomContent(1024 * 1024 + 10);

const sourceRoutes: Record<string, (response: ServerResponse) => void> = {
  '/files/data%20set%20%C3%A9.bin': (response) => {
    response.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': String(payload.length),
    });
    response.end(payload);
  },
  '/files/chunked.bin': (response) => {
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    response.write(payload.subarray(0, 1000));
    setTimeout(() => response.end(payload.subarray(1000)), 20);
  },
  '/files/second.bin': (response) => {
    response.writeHead(200, { 'content-length': String(payload.length) });
    response.end(payload);
  },
  '/hop': (response) => {
    response.writeHead(302, { location: '/files/chunked.bin' });
    response.end();
  },
  '/big-declared.bin': (response) => {
    response.writeHead(200, { 'content-length': String(big.length) });
    response.end(big);
  },
  '/big-chunked.bin': (response) => {
    response.writeHead(200, { 'content-type': 'application/octet-stream' });
    response.write(big.subarray(0, 512 * 1024));
    setTimeout(() => response.end(big.subarray(512 * 1024)), 20);
  },
  '/broken.bin': (response) => {
    response.writeHead(200, { 'content-length': String(payload.length) });
    response.write(payload.subarray(0, 100 * 1024));
    setTimeout(() => response.destroy(), 50);
  },
  '/loop': (response) => {
    response.writeHead(302, { location: '/loop' });
    response.end();
  },
  '/to-ftp': (response) => {
    response.writeHead(302, { location: 'ftp://example.org/file' });
    response.end();
  },
};

describe('SSRF guard: addresses', () => {
  test('loopback, private, link-local, unspecified, multicast and their IPv6 disguises are forbidden', () => {
    for (const address of [
      '127.0.0.1',
      '127.1.2.3',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '169.254.169.254',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fe80::1%eth0',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::ffff:a00:1',
      '::127.0.0.1',
      '64:ff9b::a9fe:a9fe',
      '2002:7f00:1::',
      '[::1]',
      'not-an-ip',
      // NAT64 and 6to4 ranges are refused whole, whatever IPv4 address they embed.
      '64:ff9b::808:808',
      '2002:808:808::',
    ]) {
      assert.equal(isForbiddenAddress(address), true, address);
    }
  });

  test('public addresses are allowed', () => {
    for (const address of [
      '93.184.216.34',
      '8.8.8.8',
      '172.32.0.1',
      '100.128.0.1',
      '2606:4700::1111',
      '::ffff:8.8.8.8',
    ]) {
      assert.equal(isForbiddenAddress(address), false, address);
    }
  });
});

describe('SSRF guard: outbound requests', () => {
  let source: Source;
  before(async () => {
    source = await startSource(sourceRoutes);
  });
  after(() => source.close());

  test('refuses IP literals and names that resolve to loopback, at connect time, before any byte is sent', async () => {
    const port = new URL(source.url).port;
    for (const host of ['127.0.0.1', 'localhost', '[::1]', '[::ffff:127.0.0.1]', '0.0.0.0']) {
      await assert.rejects(
        outboundGet(new URL(`http://${host}:${port}/files/chunked.bin`), {
          allowPrivateNetworks: false,
        }),
        (error: unknown) => error instanceof OutboundError && error.code === 'ERR_ADDRESS_REFUSED',
        host,
      );
    }
    assert.deepEqual(source.hits, [], 'the source never saw a request');
  });

  test('follows at most 5 redirects, and only to http(s)', async () => {
    const allowed = { allowPrivateNetworks: true };
    const hop = await outboundGet(new URL(`${source.url}/hop`), allowed);
    assert.equal(hop.statusCode, 200);
    assert.equal(hop.url.pathname, '/files/chunked.bin');
    assert.deepEqual(Buffer.from(await hop.body.arrayBuffer()), payload);
    await hop.close();
    await assert.rejects(
      outboundGet(new URL(`${source.url}/loop`), allowed),
      (error: unknown) => error instanceof OutboundError && error.code === 'ERR_TOO_MANY_REDIRECTS',
    );
    assert.equal(
      source.hits.filter((hit) => hit === '/loop').length,
      6,
      'the first request and five redirects',
    );
    await assert.rejects(
      outboundGet(new URL(`${source.url}/to-ftp`), allowed),
      (error: unknown) => error instanceof OutboundError && error.code === 'ERR_BAD_URL',
    );
  });
});

const notificationsOf = (agent: TestBackend, user: string): Record<string, any>[] =>
  agent.requests
    .filter((request: RecordedRequest) => request.path === '/notification')
    .map((request) => JSON.parse(request.body.toString('utf8')))
    .filter((body) => body.user === user);

for (const engine of engines) {
  describe(
    `URL import (private networks allowed, as in a closed test network) (${engine})`,
    { skip: skipWithout(engine) },
    () => {
      let gateway: FileioGateway;
      let database: Awaited<ReturnType<typeof engineDatabase>>;
      let agent: TestBackend;
      let source: Source;
      let dest: string;

      before(async () => {
        source = await startSource(sourceRoutes);
        agent = await startBackend((_request, response) => {
          response.writeHead(200);
          response.end();
        });
        database = await engineDatabase(engine);
        gateway = await startFileioGateway({
          ...database.env,
          URL_IMPORT_ALLOW_PRIVATE_NETWORKS: 'true',
          NOTIFICATION_AGENT_URL: agent.url,
          MAX_UPLOAD_BYTES: String(1024 * 1024),
        });
        dest = gateway.home('alice');
        await gateway.call('alice', 'GET', '/secured/bootstrap');
      });
      after(async () => {
        await gateway?.close();
        await database?.drop();
        await agent?.close();
        await source?.close();
      });

      const importAs = (user: string, address: string, folder = dest) =>
        gateway.call(user, 'POST', '/secured/fileio/urlupload', {
          json: { dest: folder, address },
        });

      test('answers at once, lands the file byte for byte and notifies the user', async () => {
        const address = `${source.url}/files/data%20set%20%C3%A9.bin`;
        const { status, body } = await importAs('alice', address);
        assert.equal(status, 200, JSON.stringify(body));
        assert.deepEqual(body, {
          msg: 'Upload scheduled.',
          url: address,
          label: 'data set é.bin',
          dest,
        });

        const notification = await eventually(
          () => notificationsOf(agent, 'alice').find((n) => n.payload?.url === address),
          10_000,
          'the notification',
        );
        assert.equal(notification!.type, 'data');
        assert.equal(notification!.subject, 'data set é.bin imported');
        assert.equal(notification!.email, false);
        assert.deepEqual(notification!.payload, {
          action: 'url_import',
          url: address,
          dest,
          path: `${dest}/data set é.bin`,
        });

        const download = await gateway.call(
          'alice',
          'GET',
          `/secured/fileio/download?path=${encodeURIComponent(`${dest}/data set é.bin`)}`,
        );
        assert.equal(download.status, 200);
        assert.deepEqual(download.bytes, payload);

        const again = await importAs('alice', address);
        assert.equal(again.status, 500);
        assert.equal(again.body.error_code, 'ERR_EXISTS');
        assert.equal(again.body.path, `${dest}/data set é.bin`);
      });

      test('follows a redirect and takes the name from the URL the client gave', async () => {
        const { status, body } = await importAs('alice', `${source.url}/hop`);
        assert.equal(status, 200);
        assert.equal(body.label, 'hop');
        await eventually(
          () => notificationsOf(agent, 'alice').find((n) => n.payload?.url === `${source.url}/hop`),
          10_000,
          'the notification',
        );
        const download = await gateway.call(
          'alice',
          'GET',
          `/secured/fileio/download?path=${encodeURIComponent(`${dest}/hop`)}`,
        );
        assert.deepEqual(download.bytes, payload);
      });

      test('query parameters stand in for a missing body', async () => {
        const address = `${source.url}/files/chunked.bin`;
        const { status, body } = await gateway.call(
          'alice',
          'POST',
          `/secured/fileio/urlupload?dest=${encodeURIComponent(dest)}&address=${encodeURIComponent(address)}`,
        );
        assert.equal(status, 200, JSON.stringify(body));
        assert.equal(body.label, 'chunked.bin');
        const notification = await eventually(
          () => notificationsOf(agent, 'alice').find((n) => n.payload?.url === address),
          10_000,
          'the notification',
        );
        assert.equal(notification!.subject, 'chunked.bin imported');
        // The web UI's proxy sends `{}` with every call: that is no body either.
        const second = `${source.url}/files/second.bin`;
        const withEmpty = await gateway.call(
          'alice',
          'POST',
          `/secured/fileio/urlupload?dest=${encodeURIComponent(dest)}&address=${encodeURIComponent(second)}`,
          { json: {} },
        );
        assert.equal(withEmpty.status, 200, withEmpty.text);
        assert.equal(withEmpty.body.label, 'second.bin');
        await eventually(
          () => notificationsOf(agent, 'alice').find((n) => n.payload?.url === second),
          10_000,
          'the notification',
        );
        const missing = await gateway.call(
          'alice',
          'POST',
          `/secured/fileio/urlupload?dest=${encodeURIComponent(dest)}`,
          { json: {} },
        );
        assert.equal(missing.status, 500);
        assert.equal(missing.body.error_code, 'ERR_MISSING_QUERY_PARAMETER');
      });

      for (const [name, route, why] of [
        ['a missing source', '/nothing-here.bin', /404/],
        [
          'a source larger than MAX_UPLOAD_BYTES (declared)',
          '/big-declared.bin',
          /larger than the upload limit/,
        ],
        [
          'a source larger than MAX_UPLOAD_BYTES (found while streaming)',
          '/big-chunked.bin',
          /larger than the upload limit/,
        ],
        ['a source that breaks off midway', '/broken.bin', /./],
      ] as const) {
        test(`${name}: a failure notification and nothing left in the store`, async () => {
          const before = gateway.blobFiles();
          const address = `${source.url}${route}`;
          const label = route.slice(1);
          const { status } = await importAs('alice', address);
          assert.equal(status, 200);
          const notification = await eventually(
            () => notificationsOf(agent, 'alice').find((n) => n.payload?.url === address),
            10_000,
            'the notification',
          );
          assert.equal(notification!.subject, `URL import of ${label} failed`);
          assert.equal(notification!.payload.action, 'url_import');
          assert.equal(notification!.payload.dest, dest);
          assert.match(notification!.payload.error, why);
          assert.equal(notification!.payload.path, undefined);
          assert.deepEqual(await gateway.rows(`${dest}/${label}`), [], 'no catalog row');
          await eventually(() => gateway.blobFiles().tmp === 0, 5_000, 'temporary files to go');
          assert.deepEqual(gateway.blobFiles(), before, 'no blob kept');
        });
      }

      test('the file name falls back to the host and must be a valid name', async () => {
        const port = new URL(source.url).port;
        const hostOnly = await importAs('alice', `http://127.0.0.1:${port}/`);
        assert.equal(hostOnly.status, 200);
        assert.equal(hostOnly.body.label, '127.0.0.1');
        const slash = await importAs('alice', `${source.url}/a%2Fb`);
        assert.equal(slash.status, 500);
        assert.equal(slash.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      });

      test('every listed error code, as 500 with its context', async () => {
        const address = `${source.url}/files/chunked.bin`;
        const cases: Array<
          [string, () => Promise<{ status: number; body: any }>, Record<string, unknown>?]
        > = [
          [
            'ERR_INVALID_JSON',
            () =>
              gateway.call('alice', 'POST', '/secured/fileio/urlupload', {
                raw: '{"dest":',
                headers: { 'content-type': 'application/json' },
              }),
          ],
          [
            'ERR_BAD_OR_MISSING_FIELD',
            () => gateway.call('alice', 'POST', '/secured/fileio/urlupload', { json: { dest } }),
          ],
          [
            'ERR_BAD_OR_MISSING_FIELD',
            () =>
              gateway.call('alice', 'POST', '/secured/fileio/urlupload', {
                json: { dest: 42, address },
              }),
          ],
          ['ERR_BAD_OR_MISSING_FIELD', () => importAs('alice', address, 'home/alice')],
          [
            'ERR_MISSING_QUERY_PARAMETER',
            () =>
              gateway.call(
                'alice',
                'POST',
                `/secured/fileio/urlupload?dest=${encodeURIComponent(dest)}`,
              ),
          ],
          ['ERR_NOT_A_USER', () => importAs('shared', address, gateway.home('alice'))],
          ['ERR_NOT_WRITEABLE', () => importAs('bob', address, gateway.home('alice'))],
          ['ERR_DOES_NOT_EXIST', () => importAs('alice', address, `${dest}/no-such-folder`)],
          [
            'ERR_EXISTS',
            () => importAs('alice', `${source.url}/files/data%20set%20%C3%A9.bin`),
            { path: `${dest}/data set é.bin` },
          ],
          [
            'ERR_INVALID_URL',
            () => importAs('alice', 'ftp://example.org/file.txt'),
            { url: 'ftp://example.org/file.txt' },
          ],
          ['ERR_INVALID_URL', () => importAs('alice', 'not a url'), { url: 'not a url' }],
          ['ERR_INVALID_URL', () => importAs('alice', 'http://'), { url: 'http://' }],
        ];
        await gateway.call('bob', 'GET', '/secured/bootstrap');
        for (const [code, send, context] of cases) {
          const { status, body } = await send();
          assert.equal(status, 500, `${code}: ${JSON.stringify(body)}`);
          assert.equal(body.error_code, code, JSON.stringify(body));
          for (const [key, value] of Object.entries(context ?? {}))
            assert.deepEqual(body[key], value, `${code} carries ${key}`);
        }
      });

      test('a caller without credentials gets 401, not a file I/O 500', async () => {
        const { status, body } = await gateway.call(null, 'POST', '/secured/fileio/urlupload', {
          json: { dest, address: `${source.url}/x` },
        });
        assert.equal(status, 401);
        assert.equal(body.error_code, 'ERR_NOT_AUTHORIZED');
      });
    },
  );
}

describe('URL import refuses this network by default', () => {
  let gateway: FileioGateway;
  let source: Source;
  before(async () => {
    source = await startSource(sourceRoutes);
    gateway = await startFileioGateway();
  });
  after(async () => {
    await gateway.close();
    await source.close();
  });

  test('loopback, link-local (cloud metadata), IPv6 loopback and names resolving to loopback are ERR_INVALID_URL', async () => {
    const port = new URL(source.url).port;
    const dest = gateway.home('alice');
    for (const host of [
      '127.0.0.1',
      'localhost',
      '169.254.169.254',
      '[::1]',
      '10.1.2.3',
      '[::ffff:127.0.0.1]',
      '0.0.0.0',
      '[fd00::1]',
    ]) {
      const address = `http://${host}:${port}/files/chunked.bin`;
      const { status, body } = await gateway.call('alice', 'POST', '/secured/fileio/urlupload', {
        json: { dest, address },
      });
      assert.equal(status, 500, host);
      assert.equal(body.error_code, 'ERR_INVALID_URL', `${host}: ${JSON.stringify(body)}`);
      assert.equal(body.url, address);
    }
    assert.deepEqual(source.hits, [], 'nothing was fetched');
  });
});

describe('URL import when the data store fails while starting', () => {
  let gateway: FileioGateway;
  let broken: TestBackend;
  before(async () => {
    broken = await startBackend((_request, response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('boom');
    });
    gateway = await startFileioGateway({
      DATA_INFO_URL: broken.url,
      URL_IMPORT_ALLOW_PRIVATE_NETWORKS: 'true',
    });
  });
  after(async () => {
    await gateway.close();
    await broken.close();
  });

  test('ERR_REQUEST_FAILED carries the request JSON as msg', async () => {
    const request = { dest: '/platform/home/alice', address: 'http://127.0.0.1:9/file.txt' };
    const { status, body } = await gateway.call('alice', 'POST', '/secured/fileio/urlupload', {
      json: request,
    });
    assert.equal(status, 500);
    assert.equal(body.error_code, 'ERR_REQUEST_FAILED');
    assert.deepEqual(body.msg, request);
  });
});
