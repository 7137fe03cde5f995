// Hostile paths through the gateway's HTTP routes (query strings and JSON bodies): each is refused
// with 400 ERR_BAD_OR_MISSING_FIELD, or — when it only looks hostile (an encoded dot stays a
// literal name) — stays a name inside the caller's own folder. Afterwards the catalog holds nothing
// outside the caller's rights, and no file appeared anywhere but under DATA_STORE_DIR.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { isWithin } from '../../src/common/data-path.ts';
import {
  q,
  startDataStoreGateway,
  type Answer,
  type DataStoreGateway,
} from '../support/data-store.ts';
import { engines, skipWithout } from '../support/postgres.ts';
import { recordTried, testFile } from '../support/reliability.ts';

const zone = 'platform';
const H = `/${zone}/home/alice`;

/** Strings the server sees after the one decoding of its transport, and must refuse. */
const refused: [label: string, path: unknown][] = [
  ['parent segment', `${H}/../bob`],
  ['trailing parent', `${H}/..`],
  ['into another home', `/${zone}/home/bob/../alice/x`],
  ['the brief’s bob/../alice', `/${zone}/home/bob/../alice`],
  ['dot segment', `${H}/./x`],
  ['climb two levels', `${H}/x/../../bob/y`],
  ['leading parent', `/../${zone}/home/alice`],
  ['to /etc', `${H}/../../../../etc/passwd`],
  ['absolute system path', '/etc/passwd'],
  ['double slash', `${H}//x`],
  ['leading double slash', `//${zone}/home/alice/x`],
  ['trailing double slash', `${H}/x//`],
  ['NUL', `${H}/x\u0000y`],
  ['NUL at the end', `${H}/x.txt\u0000.png`],
  ['newline', `${H}/x\ny`],
  ['carriage return', `${H}/x\ry`],
  ['tab', `${H}/x\ty`],
  ['escape', `${H}/x\u001b[31m`],
  ['DEL', `${H}/x\u007f`],
  ['C1 NEL', `${H}/x\u0085y`],
  ['line separator', `${H}/x\u2028y`],
  ['backslash traversal', `${H}\\..\\bob`],
  ['backslash in a name', `${H}/x\\y`],
  ['other zone', '/other/home/alice/x'],
  ['zone in another case', `/Platform/home/alice/x`],
  ['zone prefix', `/${zone}x/home/alice`],
  ['relative', `${zone}/home/alice/x`],
  ['dot relative', `./${zone}/home/alice`],
  ['empty', ''],
  ['root', '/'],
  ['overlong segment', `${H}/${'a'.repeat(256)}`],
  ['overlong multibyte segment', `${H}/${'é'.repeat(128)}`],
  ['overlong path', `${H}/${'abcdefgh/'.repeat(300)}x`],
];

/** Only JSON can carry these. */
const refusedInJson: [string, unknown][] = [
  ['lone surrogate', `${H}/\ud800`],
  ['number', 42],
  ['null', null],
  ['list of two', [`${H}/a`, `${H}/b`]],
  ['object', { path: H }],
];

/** Look hostile, are plain names after one decoding: must stay inside alice's home. */
const literal: [string, string][] = [
  ['encoded dots', `${H}/%2e%2e`],
  ['encoded dots then a name', `${H}/%2e%2e/bob`],
  ['double-encoded dots', `${H}/%252e%252e`],
  ['encoded slash', `${H}/a%2fb`],
  ['encoded parent via slash', `${H}/..%2f..%2fbob`],
  ['encoded NUL', `${H}/a%00b`],
  ['fullwidth dots', `${H}/．．`],
  ['one-dot leader pair', `${H}/\u2024\u2024`],
  ['three dots', `${H}/...`],
  ['right-to-left override', `${H}/\u202etxt.exe`],
  ['decomposed accent', `${H}/cafe\u0301`],
];

/** Raw query strings whose single decoding yields a refused path. */
const rawQueries: [string, string][] = [
  ['%2e%2e decodes to ..', `${H}/%2e%2e/bob`],
  ['%2E%2E upper case', `${H}/%2E%2E/bob`],
  ['%2f..%2f decodes to /../', `${H}%2f..%2fbob`],
  ['%00 decodes to NUL', `${H}/x%00`],
  ['%5c decodes to a backslash', `${H}/%5c..%5cbob`],
  ['%0a decodes to a newline', `${H}/x%0ay`],
  ['+ is a space, .. stays ..', `${H}/../bob+x`],
];

interface Probe {
  route: string;
  /** Corpus labels that mean something else on this route. */
  skip?: string[];
  send(gw: DataStoreGateway, hostile: unknown): Promise<Answer>;
}

for (const engine of engines) {
  describe(`data traversal (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: DataStoreGateway;
    let sandbox: string;
    let storeDir: string;
    let before_: Set<string>;
    let sourceCounter = 0;

    /** Every file and folder under `dir`, relative to it. */
    function walk(dir: string, prefix = ''): string[] {
      const found: string[] = [];
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const relative = path.join(prefix, entry.name);
        found.push(relative);
        if (entry.isDirectory()) found.push(...walk(path.join(dir, entry.name), relative));
      }
      return found;
    }

    /** The files renames and moves start from, by kind: made once, and again only after a probe moved one away. */
    const sources = new Map<string, string>();
    async function fromSource(
      gw: DataStoreGateway,
      kind: string,
      send: (source: string) => Promise<Answer>,
    ): Promise<Answer> {
      let source = sources.get(kind);
      if (!source) {
        const name = `${kind}-${++sourceCounter}.txt`;
        await gw.upload('alice', `${H}/probe`, name, 'probe');
        source = `${H}/probe/${name}`;
        sources.set(kind, source);
      }
      const answer = await send(source);
      if (answer.status === 200) sources.delete(kind);
      return answer;
    }

    const probes: Probe[] = [
      {
        route: 'stat (JSON paths)',
        send: (gw, p) =>
          gw.call('alice', 'POST', '/secured/filesystem/stat', { json: { paths: [p] } }),
      },
      {
        route: 'paged-directory (query)',
        send: (gw, p) =>
          gw.call(
            'alice',
            'GET',
            `/filesystem/paged-directory?path=${typeof p === 'string' ? q(p) : ''}&limit=5`,
          ),
      },
      // Without a path, directory answers the roots.
      {
        route: 'directory (query)',
        skip: ['empty'],
        send: (gw, p) =>
          gw.call(
            'alice',
            'GET',
            `/secured/filesystem/directory?path=${typeof p === 'string' ? q(p) : '%2F'}`,
          ),
      },
      {
        route: 'directory/create (JSON)',
        send: (gw, p) =>
          gw.call('alice', 'POST', '/secured/filesystem/directory/create', { json: { path: p } }),
      },
      {
        route: 'rename (JSON dest)',
        send: (gw, p) =>
          fromSource(gw, 'src', (source) =>
            gw.call('alice', 'POST', '/secured/filesystem/rename', { json: { source, dest: p } }),
          ),
      },
      {
        route: 'rename (JSON source)',
        send: (gw, p) =>
          gw.call('alice', 'POST', '/secured/filesystem/rename', {
            json: { source: p, dest: `${H}/probe/renamed.txt` },
          }),
      },
      {
        route: 'move (JSON sources)',
        send: (gw, p) =>
          gw.call('alice', 'POST', '/filesystem/move', {
            json: { sources: [p], dest: `${H}/probe` },
          }),
      },
      {
        route: 'move (JSON dest)',
        send: (gw, p) =>
          fromSource(gw, 'mv', (source) =>
            gw.call('alice', 'POST', '/filesystem/move', { json: { sources: [source], dest: p } }),
          ),
      },
      {
        route: 'delete (JSON)',
        send: (gw, p) =>
          gw.call('alice', 'POST', '/secured/filesystem/delete', { json: { paths: [p] } }),
      },
      {
        route: 'read-chunk (JSON)',
        send: (gw, p) =>
          gw.call('alice', 'POST', '/filesystem/read-chunk', {
            json: { path: p, position: 0, 'chunk-size': 10 },
          }),
      },
      {
        route: 'tickets (JSON)',
        send: (gw, p) =>
          gw.call('alice', 'POST', '/secured/filesystem/tickets?public=1', {
            json: { paths: [p] },
          }),
      },
      {
        route: 'anonymous stat (JSON)',
        send: (gw, p) => gw.call(null, 'POST', '/filesystem/stat', { json: { paths: [p] } }),
      },
    ];

    function assertRefused(answer: Answer, what: string) {
      assert.equal(
        answer.status,
        400,
        `${what}: expected 400, got ${answer.status} ${answer.text}`,
      );
      assert.equal(answer.body?.error_code, 'ERR_BAD_OR_MISSING_FIELD', `${what}: ${answer.text}`);
    }

    before(async () => {
      sandbox = mkdtempSync(path.join(tmpdir(), 'gateway-traversal-'));
      storeDir = path.join(sandbox, 'store', 'bytes');
      mkdirSync(path.join(sandbox, 'gateway'), { recursive: true });
      gw = (await startDataStoreGateway({
        engine,
        env: {
          GATEWAY_DATA_DIR: path.join(sandbox, 'gateway'),
          DATA_STORE_DIR: storeDir,
          DATA_ZONE: zone,
        },
      }))!;
      await gw.ok('bob', 'GET', '/secured/filesystem/root');
      await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
        json: { paths: [`${H}/probe`] },
      });
      before_ = new Set(
        walk(sandbox).filter((entry) => !entry.startsWith(path.join('store', 'bytes'))),
      );
    });
    after(async () => {
      await gw?.close();
      rmSync(sandbox, { recursive: true, force: true });
    });

    describe('hostile paths through HTTP', () => {
      test(`the corpus is large enough (${refused.length + refusedInJson.length + literal.length + rawQueries.length} paths)`, () => {
        assert.ok(refused.length + refusedInJson.length + literal.length + rawQueries.length >= 30);
      });

      for (const probe of probes) {
        test(`${probe.route}: every hostile path is refused with ERR_BAD_OR_MISSING_FIELD`, async () => {
          let tried = 0;
          for (const [label, hostile] of refused)
            if (!probe.skip?.includes(label)) {
              assertRefused(await probe.send(gw, hostile), `${probe.route} / ${label}`);
              tried += 1;
            }
          if (!probe.route.includes('query')) {
            for (const [label, hostile] of refusedInJson) {
              assertRefused(await probe.send(gw, hostile), `${probe.route} / ${label}`);
              tried += 1;
            }
          }
          recordTried({
            area: 'paths',
            what: `hostile paths (parent and dot segments, encodings, control characters) to ${probe.route}, refused with ERR_BAD_OR_MISSING_FIELD`,
            tried,
            held: tried,
            file: testFile(import.meta.url),
            note: engine,
          });
        });
      }

      test('raw query strings are decoded once, and what that decoding makes is refused', async () => {
        for (const [label, raw] of rawQueries) {
          assertRefused(
            await gw.call('alice', 'GET', `/filesystem/paged-directory?path=${raw}&limit=5`),
            `paged-directory / ${label}`,
          );
          assertRefused(
            await gw.call('alice', 'GET', `/secured/filesystem/directory?path=${raw}`),
            `directory / ${label}`,
          );
          assertRefused(
            await gw.call('alice', 'GET', `/filesystem/file/manifest?path=${raw}`),
            `manifest / ${label}`,
          );
          assertRefused(
            await gw.call('alice', 'POST', `/filesystem/path-list-creator?dest=${raw}`, {
              json: { paths: [`${H}/probe`] },
            }),
            `path-list-creator dest / ${label}`,
          );
        }
      });

      test('literal look-alikes are plain names: made inside the home, never outside', async () => {
        for (const [label, name] of literal) {
          const made = await gw.call('alice', 'POST', '/secured/filesystem/directory/create', {
            json: { path: name },
          });
          assert.equal(made.status, 200, `${label} is a plain name: ${made.status} ${made.text}`);
          {
            assert.ok(isWithin(made.body.path, H), `${label} made ${made.body.path}`);
            assert.equal(made.body.path, name.normalize('NFC'));
            const listed = await gw.ok(
              'alice',
              'GET',
              `/filesystem/paged-directory?path=${q(name)}&limit=5`,
            );
            assert.equal(listed.path, name.normalize('NFC'));
          }
          for (const probe of probes) {
            const answer = await probe.send(gw, name);
            assert.ok(
              answer.status < 500,
              `${probe.route} / ${label}: ${answer.status} ${answer.text}`,
            );
          }
        }
        // The encoded dots under alice's home are a folder of that name, not bob's home.
        const encoded = await gw.stat('alice', `${H}/%2e%2e/bob`);
        if (encoded) assert.ok(isWithin(encoded.path, H));
      });

      test('bob gets nothing of alice by climbing out of his own home', async () => {
        for (const hostile of [
          `/${zone}/home/bob/../alice`,
          `/${zone}/home/bob/../alice/probe`,
          `/${zone}/home/bob/%2e%2e/alice`,
        ]) {
          const answer = await gw.call('bob', 'POST', '/secured/filesystem/stat', {
            json: { paths: [hostile] },
          });
          assert.ok(answer.status >= 400 && answer.status < 500, answer.text);
          assert.ok(
            ['ERR_BAD_OR_MISSING_FIELD', 'ERR_DOES_NOT_EXIST'].includes(answer.body.error_code),
            answer.text,
          );
          const made = await gw.call('bob', 'POST', '/secured/filesystem/directory/create', {
            json: { path: `${hostile}/planted` },
          });
          if (made.status === 200)
            assert.ok(isWithin(made.body.path, `/${zone}/home/bob`), made.body.path);
        }
      });

      test('afterwards: the catalog holds nothing outside the zone or the owners’ rights, and bytes stay in DATA_STORE_DIR', async () => {
        const objects = await gw.running.gateway.store.db
          .selectFrom('data_objects')
          .select(['path', 'owner', 'type'])
          .execute();
        for (const object of objects) {
          assert.ok(isWithin(object.path, `/${zone}`), object.path);
          if (object.owner === 'alice') {
            assert.ok(
              isWithin(object.path, H) || isWithin(object.path, `/${zone}/trash/home/alice`),
              `alice owns ${object.path}`,
            );
          }
          if (object.owner === 'bob') {
            assert.ok(
              isWithin(object.path, `/${zone}/home/bob`) ||
                isWithin(object.path, `/${zone}/trash/home/bob`),
              `bob owns ${object.path}`,
            );
          }
          assert.ok(!/[\u0000-\u001f\u007f\\]/.test(object.path), JSON.stringify(object.path));
          assert.ok(
            !object.path
              .split('/')
              .slice(1)
              .some((segment) => segment === '' || segment === '.' || segment === '..'),
            object.path,
          );
        }
        const bobsHome = objects
          .filter((object) => isWithin(object.path, `/${zone}/home/bob`))
          .map((object) => object.path);
        assert.ok(
          bobsHome.every(
            (objectPath) => objects.find((object) => object.path === objectPath)!.owner === 'bob',
          ),
          JSON.stringify(bobsHome),
        );

        const now = walk(sandbox).filter((entry) => !entry.startsWith(path.join('store', 'bytes')));
        const appeared = now.filter((entry) => !before_.has(entry));
        // The gateway's own database may grow journal files; nothing else may appear outside the store.
        assert.deepEqual(
          appeared.filter(
            (entry) =>
              !/^gateway[\\/]gateway\.sqlite(-wal|-shm|-journal)?$/.test(entry) &&
              !entry.startsWith(path.join('gateway', 'run')),
          ),
          [],
        );
        assert.ok(statSync(storeDir).isDirectory());
        for (const entry of walk(storeDir))
          assert.ok(!entry.includes('..') && !/%2e|\.\./i.test(entry), entry);
      });
    });
  });
}
