// The embedded genome service alone (with data-info for fixtures) on each engine: it knows the
// caller only from a token signed with the gateway's service-token key, for its own audience and
// still valid; jobs are its caller's alone; and its FASTA reader counts records and letters and
// refuses what is not FASTA.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { FastaCounter, FastaError } from '../../../src/backends/genomesvc/fasta.ts';
import { ServiceTokenSigner } from '../../../src/common/service-token.ts';
import type { Identity } from '../../../src/common/identity.ts';
import { hostEngines, type BackendHost } from '../../support/backend-host.ts';
import { eventually } from '../../support/fileio.ts';

const identity = (username: string): Identity => ({
  username,
  email: `${username}@example.org`,
  firstName: 'A',
  lastName: 'B',
  roles: [],
  groups: [],
});

for (const engine of hostEngines) {
  describe(`embedded genome service (${engine.name})`, () => {
    let host: BackendHost | undefined;
    let signer: ServiceTokenSigner;
    before(async () => {
      host = await engine.open({ names: ['data-info', 'genomesvc'] });
      if (host) signer = new ServiceTokenSigner(host.dir, 'genomesvc');
    });
    after(async () => host?.close());

    const send = async (method: string, url: string, token: string | undefined, body?: unknown) => {
      const headers: Record<string, string> = token ? { 'x-vendor-de-jwt': token } : {};
      if (body !== undefined) headers['content-type'] = 'application/json';
      return host!.request(method, `/genomesvc${url}`, {
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    };

    test('only a valid gateway-signed token for the genome service identifies the caller', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      const otherDir = mkdtempSync(path.join(tmpdir(), 'other-gateway-'));
      t.after(() => rmSync(otherDir, { recursive: true, force: true }));
      const now = Math.floor(Date.now() / 1000);
      const refused: [string, string | undefined][] = [
        ['no token', undefined],
        ['not a token', 'abc'],
        [
          'another key',
          await new ServiceTokenSigner(otherDir, 'genomesvc').sign(identity('alice')),
        ],
        [
          'another audience',
          await new ServiceTokenSigner(host.dir, 'pidprovider').sign(identity('alice')),
        ],
        ['expired', await signer.sign(identity('alice'), now - 400)],
        ['not yet issued', await signer.sign(identity('alice'), now + 400)],
      ];
      for (const [why, token] of refused) {
        const answer = await send('GET', '/genomes/search/abc', token);
        assert.equal(answer.status, 401, why);
        assert.equal(answer.json().error_code, 'ERR_NOT_AUTHORIZED', why);
      }
      const ok = await send('GET', '/genomes/search/abc', await signer.sign(identity('alice')));
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.json(), { genomes: [] });
      const short = await send('GET', '/genomes/search/ab', await signer.sign(identity('alice')));
      assert.equal(short.status, 400);
      const reserved = await send(
        'GET',
        '/genomes/search/abc',
        await signer.sign(identity('public')),
      );
      assert.equal(reserved.json().error_code, 'ERR_NOT_A_USER');
    });

    test('a load job is described to its caller alone, and unknown job types are refused', async (t) => {
      if (!host) return t.skip('DATABASE_URL is not set');
      const alice = await signer.sign(identity('alice'));
      const upload = await host.request(
        'POST',
        `/data-info/data?user=alice&dest=${encodeURIComponent('/platform/home/alice')}&filename=m.fa`,
        {
          headers: { 'content-type': 'application/octet-stream' },
          body: '>m\nACGT\n',
        },
      );
      assert.equal(upload.status, 200, upload.text);
      const loaded = await send('PUT', '/genomes', alice, {
        source_data: [{ type: 'data-store', path: '/platform/home/alice/m.fa' }],
        metadata: { name: 'mouse', restricted: false },
      });
      assert.equal(loaded.status, 200, loaded.text);
      const { id, job_id: jobId } = loaded.json();
      const job = await eventually(async () => {
        const answer = (await send('GET', `/jobs/${jobId}`, alice)).json();
        return answer.status === 'Running' ? undefined : answer;
      });
      assert.equal(job.status, 'Completed');
      assert.equal(job.genome_id, id);
      assert.deepEqual(job.paths, ['/platform/home/alice/m.fa']);
      assert.equal(
        (await send('GET', `/jobs/${jobId}`, await signer.sign(identity('bob')))).status,
        404,
      );
      const notified = host.notifications.find((n) => n.payload?.genome_id === id);
      assert.equal(notified?.user, 'alice');
      assert.equal(notified?.payload?.status, 'Completed');

      // An unrestricted genome is found by everyone.
      const found = (
        await send('GET', '/genomes/search/MOUSE', await signer.sign(identity('bob')))
      ).json();
      assert.deepEqual(
        found.genomes.map((genome: any) => [genome.id, genome.owner, genome.restricted]),
        [[id, 'alice', false]],
      );

      const other = await send('PUT', '/jobs', alice, {
        type: 'export_gff',
        parameters: { genome_id: id },
      });
      assert.equal(other.status, 400);
      const noType = await send('PUT', '/jobs', alice, { parameters: { genome_id: id } });
      assert.equal(noType.status, 400);
    });
  });
}

describe('FASTA reader', () => {
  const count = (...chunks: string[]) => {
    const counter = new FastaCounter();
    for (const chunk of chunks) counter.push(Buffer.from(chunk));
    return counter.finish();
  };

  test('counts records and letters across chunk boundaries, with comments, blank lines and CRLF', () => {
    assert.deepEqual(count('>a desc\nAC', 'GT\r\n\n;note\n>', 'b\nnn-*\n'), {
      sequences: 2,
      length: 8,
    });
    assert.deepEqual(count('>only\nA'), { sequences: 1, length: 1 });
  });

  test('refuses what is not FASTA, naming the line', () => {
    for (const [text, pattern] of [
      ['', /no ">" header/],
      ['ACGT\n>a\nAC\n', /line 1: sequence letters before/],
      ['>a\nAC1T\n', /line 2: "1" is not a sequence letter/],
      ['>a\n>b\nAC\n', /sequence 1 .* has no sequence letters/],
      ['>a\nAC\n>b\n', /sequence 2 .* has no sequence letters/],
      ['>a\u0000\nAC\n', /NUL/],
    ] as const) {
      assert.throws(
        () => count(text),
        (error: unknown) => error instanceof FastaError && pattern.test(error.message),
        JSON.stringify(text),
      );
    }
  });
});
