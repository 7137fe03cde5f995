// The genome service end to end (routes.md §15): a gateway with every embedded backend, on each
// engine. FASTA files uploaded to the data store are loaded as genomes in the background (the
// caller is notified), found by search, and exported back into the caller's folder byte for byte;
// files that are not FASTA, files the caller cannot read and existing exports are refused.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { q, startDataStoreGateway, type DataStoreGateway } from '../support/data-store.ts';
import { eventually } from '../support/fileio.ts';
import { requiredInCi } from '../support/gateway.ts';

type Notification = { type: string; subject: string; payload: Record<string, any> };

// CRLF line ends, lower case, a gap, a comment line and no final new line: an export must keep every byte.
const ecoliFasta =
  '>chr1 first chromosome\r\nACGTACGTNN\r\nacg-t\r\n;a comment\r\n>chr2\r\nTTGCA*\r\n\r\n>plasmid p1\r\nGGGGCCCC';

/** Records and sequence letters, counted the plain way: header lines start records, other non-comment lines hold letters. */
function expectedCounts(fasta: string): { sequences: number; length: number } {
  const lines = fasta.split(/\r?\n/);
  return {
    sequences: lines.filter((line) => line.startsWith('>')).length,
    length: lines
      .filter((line) => !line.startsWith('>') && !line.startsWith(';'))
      .join('')
      .replace(/\s/g, '').length,
  };
}

async function messagesOf(gw: DataStoreGateway, user: string): Promise<Notification[]> {
  return (await gw.ok(user, 'GET', '/secured/notifications/messages?sortDir=asc')).messages;
}

/** The user's genome notification for `genomeId` (or job) once it has arrived. */
function genomeNotification(
  gw: DataStoreGateway,
  user: string,
  action: string,
  match: (payload: Record<string, any>) => boolean,
): Promise<Notification> {
  return eventually(
    async () =>
      (await messagesOf(gw, user)).find((n) => n.payload.action === action && match(n.payload)),
    10_000,
    `${action} for ${user}`,
  ) as Promise<Notification>;
}

/** A file's bytes as the caller downloads them. */
async function bytesOf(gw: DataStoreGateway, user: string, path: string): Promise<Buffer> {
  const response = await fetch(`${gw.url}/secured/fileio/download?path=${q(path)}`, {
    headers: await gw.authHeaders(user),
  });
  assert.equal(response.status, 200, `download ${path}`);
  return Buffer.from(await response.arrayBuffer());
}

const md5 = (bytes: Buffer | string) => createHash('md5').update(bytes).digest('hex');

/** Loads `paths` as `user`, answering the genome id from the genome URL. */
async function load(gw: DataStoreGateway, user: string, paths: string[]): Promise<string> {
  const answer = await gw.ok(user, 'POST', '/genomesvc/genomes/load', { json: { paths } });
  const url = new URL(answer.genomesvc_genome_url);
  assert.equal(url.pathname, '/genomesvc/genomes');
  return url.searchParams.get('search')!;
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`genome service (${engine})`, () => {
    let gw: DataStoreGateway | undefined;
    before(async () => {
      gw = await startDataStoreGateway({ engine });
    });
    after(async () => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    test('a FASTA file is loaded, notified, found by search and exported byte for byte; overwrite is respected', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const g = gw!;
      const home = g.home('alice');
      const source = await g.upload('alice', home, 'ecoli.fa', ecoliFasta);
      const expected = expectedCounts(ecoliFasta);

      const id = await load(g, 'alice', [source.path]);
      const loaded = await genomeNotification(
        g,
        'alice',
        'genome_load',
        (payload) => payload.genome_id === id,
      );
      assert.equal(loaded.type, 'data');
      assert.equal(loaded.payload.status, 'Completed');
      assert.deepEqual(loaded.payload.paths, [source.path]);
      assert.equal(loaded.payload.sequence_count, expected.sequences);
      assert.equal(loaded.payload.total_length, expected.length);

      // By name in any case, and by the id the genome URL searches for.
      for (const search of ['ECOL', 'coli', id]) {
        const { genomes } = await g.ok('alice', 'GET', `/genomesvc/genomes?search=${q(search)}`);
        assert.deepEqual(
          genomes.map((genome: any) => [
            genome.id,
            genome.name,
            genome.owner,
            genome.sequence_count,
            genome.total_length,
            genome.source_paths,
          ]),
          [[id, 'ecoli', 'alice', expected.sequences, expected.length, [source.path]]],
          search,
        );
      }
      // A restricted genome is its owner's alone.
      assert.deepEqual((await g.ok('bob', 'GET', '/genomesvc/genomes?search=ecoli')).genomes, []);
      for (const route of ['/genomesvc/genomes?search=ab', '/genomesvc/genomes']) {
        const short = await g.call('alice', 'GET', route);
        assert.equal(short.status, 400, route);
        assert.match(short.body.error_code, /^ERR_/);
      }

      const job = await g.ok('alice', 'POST', `/genomesvc/genomes/${id}/export-fasta?notify=true`);
      const dest = `${home}/genomes/ecoli.fasta`;
      assert.equal(job.status, 'Running');
      const exported = await genomeNotification(
        g,
        'alice',
        'genome_export',
        (payload) => payload.job_id === job.id,
      );
      assert.equal(exported.payload.status, 'Completed');
      assert.deepEqual(exported.payload.paths, [dest]);
      assert.ok((await bytesOf(g, 'alice', dest)).equals(Buffer.from(ecoliFasta)));
      assert.equal((await g.stat('alice', dest)).md5, md5(ecoliFasta));

      // overwrite=0 on the existing export: refused, and the file is as it was.
      const before = await g.stat('alice', dest);
      const refused = await g.call(
        'alice',
        'POST',
        `/genomesvc/genomes/${id}/export-fasta?overwrite=false`,
      );
      assert.equal(refused.status, 500);
      assert.equal(refused.body.error_code, 'ERR_REQUEST_FAILED');
      assert.match(refused.body.reason, /already exists/);
      assert.deepEqual(await g.stat('alice', dest), before);

      // overwrite=1 replaces an edited export with the genome again.
      await g.ok('alice', 'POST', '/secured/fileio/save', { json: { dest, content: 'edited' } });
      assert.equal((await bytesOf(g, 'alice', dest)).toString(), 'edited');
      const again = await g.ok(
        'alice',
        'POST',
        `/genomesvc/genomes/${id}/export-fasta?overwrite=true`,
      );
      const overwritten = await genomeNotification(
        g,
        'alice',
        'genome_export',
        (payload) => payload.job_id === again.id,
      );
      assert.equal(overwritten.payload.status, 'Completed');
      assert.ok((await bytesOf(g, 'alice', dest)).equals(Buffer.from(ecoliFasta)));

      // Another user cannot export a restricted genome; an unknown id is not found either.
      for (const [user, genomeId] of [
        ['bob', id],
        ['alice', '00000000-0000-4000-8000-000000000000'],
      ] as const) {
        const missing = await g.call(user, 'POST', `/genomesvc/genomes/${genomeId}/export-fasta`);
        assert.equal(missing.status, 404, `${user} ${genomeId}`);
        assert.equal(missing.body.error_code, 'ERR_NOT_FOUND');
      }
    });

    test('several FASTA files load as one genome named after the first', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const g = gw!;
      const home = g.home('carol');
      // The first file has no final new line: one is put between the two.
      const parts = ['>a\nACGT', '>b\nGGCC\n'];
      const first = await g.upload('carol', home, 'yeast.fasta', parts[0]!);
      const second = await g.upload('carol', home, 'yeast-2.fasta', parts[1]!);
      const id = await load(g, 'carol', [first.path, second.path]);
      const loaded = await genomeNotification(
        g,
        'carol',
        'genome_load',
        (payload) => payload.genome_id === id,
      );
      const joined = `${parts[0]}\n${parts[1]}`;
      assert.equal(loaded.payload.sequence_count, expectedCounts(joined).sequences);
      assert.equal(loaded.payload.total_length, expectedCounts(joined).length);
      const job = await g.ok('carol', 'POST', `/genomesvc/genomes/${id}/export-fasta`);
      await genomeNotification(
        g,
        'carol',
        'genome_export',
        (payload) => payload.job_id === job.id && payload.status === 'Completed',
      );
      assert.equal((await bytesOf(g, 'carol', `${home}/genomes/yeast.fasta`)).toString(), joined);
    });

    test('a file that is not FASTA fails its job with a notification and leaves no genome', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const g = gw!;
      const home = g.home('dave');
      for (const [name, content] of [
        ['notes.txt', 'just some words\nnot a genome\n'],
        ['binary.fa', Buffer.from([0x3e, 0x61, 0x0a, 0x00, 0xff, 0x41])],
        ['empty-record.fa', '>a\n>b\nACGT\n'],
      ] as const) {
        const file = await g.upload('dave', home, name, content);
        const id = await load(g, 'dave', [file.path]);
        const failed = await genomeNotification(
          g,
          'dave',
          'genome_load',
          (payload) => payload.genome_id === id,
        );
        assert.equal(failed.payload.status, 'Failed', name);
        assert.deepEqual(failed.payload.paths, [file.path]);
        assert.equal(typeof failed.payload.error, 'string');
        assert.deepEqual(
          (await g.ok('dave', 'GET', `/genomesvc/genomes?search=${id}`)).genomes,
          [],
          name,
        );
        const exportIt = await g.call('dave', 'POST', `/genomesvc/genomes/${id}/export-fasta`);
        assert.equal(exportIt.status, 404, name);
      }
      assert.deepEqual((await g.ok('dave', 'GET', '/genomesvc/genomes?search=notes')).genomes, []);
    });

    test('only files the caller can read are loaded', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const g = gw!;
      const file = await g.upload('erin', g.home('erin'), 'private.fa', '>x\nACGT\n');
      const before = (await messagesOf(g, 'frank')).length;

      const refused = await g.call('frank', 'POST', '/genomesvc/genomes/load', {
        json: { paths: [file.path] },
      });
      assert.equal(refused.status, 500);
      assert.equal(refused.body.error_code, 'ERR_REQUEST_FAILED');
      assert.match(refused.body.reason, /cannot read/);
      const missing = await g.call('frank', 'POST', '/genomesvc/genomes/load', {
        json: { paths: [`${g.home('frank')}/nothing.fa`] },
      });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error_code, 'ERR_NOT_FOUND');
      const folder = await g.call('frank', 'POST', '/genomesvc/genomes/load', {
        json: { paths: [g.home('frank')] },
      });
      assert.equal(folder.status, 400);
      assert.equal(folder.body.error_code, 'ERR_BAD_REQUEST');
      const empty = await g.call('frank', 'POST', '/genomesvc/genomes/load', {
        json: { paths: [] },
      });
      assert.equal(empty.status, 400);
      assert.deepEqual((await messagesOf(g, 'frank')).length, before);
      assert.deepEqual(
        (await g.ok('frank', 'GET', '/genomesvc/genomes?search=private')).genomes,
        [],
      );

      // Shared with frank for reading, the same file loads, as frank's own genome.
      await g.ok('erin', 'POST', '/secured/share', {
        json: { sharing: [{ user: 'frank', paths: [{ path: file.path, permission: 'read' }] }] },
      });
      const id = await load(g, 'frank', [file.path]);
      const loaded = await genomeNotification(
        g,
        'frank',
        'genome_load',
        (payload) => payload.genome_id === id,
      );
      assert.equal(loaded.payload.status, 'Completed');
      assert.deepEqual(
        (await g.ok('frank', 'GET', '/genomesvc/genomes?search=private')).genomes.map(
          (genome: any) => [genome.id, genome.owner],
        ),
        [[id, 'frank']],
      );
      assert.deepEqual(
        (await g.ok('erin', 'GET', '/genomesvc/genomes?search=private')).genomes,
        [],
      );
    });
  });
}
