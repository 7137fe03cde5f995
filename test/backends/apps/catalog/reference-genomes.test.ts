// Reference genomes through the gateway, on both engines: an administrator adds, renames, moves and
// deletes them (marked, then listed only with deleted=true; permanent=true removes), users list and
// read them, and everyone else is refused the admin routes (403). A launch form's ReferenceGenome
// parameter takes a genome's id (or the genome object): accepted, the job gets the genome's path;
// an unknown or deleted genome is 400 ERR_BAD_OR_MISSING_FIELD naming the parameter.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { eventually } from '../../../support/fileio.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';

const wordCountTool = builtInApps[1]!.tool.id;

for (const engine of engines) {
  describe(`reference genomes (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
    });
    after(async () => gw?.close());

    const add = (name: string, path: string) =>
      gw.ok(admin, 'POST', '/admin/reference-genomes', { json: { name, path } });
    const names = async (query = '') =>
      (await gw.ok('alice', 'GET', `/reference-genomes${query}`)).genomes.map(
        (genome: any) => genome.name,
      );

    test('an administrator adds, changes and deletes genomes; users list and read them', async () => {
      const made = await add('Zea mays B73 v4', '/platform/genomes/zea_mays/b73_v4');
      assert.match(made.id, /^[0-9a-f-]{36}$/);
      assert.equal(made.name, 'Zea mays B73 v4');
      assert.equal(made.path, '/platform/genomes/zea_mays/b73_v4');
      assert.equal(made.deleted, false);
      assert.equal(made.created_by, made.last_modified_by);
      assert.match(made.created_by, /^root@/);
      assert.ok(!Number.isNaN(Date.parse(made.created_on)));
      const other = await add('Arabidopsis TAIR10', '/platform/genomes/arabidopsis/tair10');

      assert.deepEqual(await names(), ['Arabidopsis TAIR10', 'Zea mays B73 v4']);
      assert.deepEqual(await gw.ok('alice', 'GET', `/reference-genomes/${made.id}`), made);
      assert.deepEqual(await names('?created_by=root'), ['Arabidopsis TAIR10', 'Zea mays B73 v4']);
      assert.deepEqual(await names('?created_by=bob'), []);
      const unknown = await gw.call('alice', 'GET', `/reference-genomes/${randomUUID()}`);
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error_code, 'ERR_NOT_FOUND');
      assert.equal((await gw.call('alice', 'GET', '/reference-genomes/not-an-id')).status, 404);

      // A name in use (any letter case) is refused; bodies are checked field by field.
      const clash = await gw.call(admin, 'POST', '/admin/reference-genomes', {
        json: { name: 'zea MAYS b73 v4', path: '/platform/elsewhere' },
      });
      assert.equal(clash.status, 400);
      assert.equal(clash.body.error_code, 'ERR_EXISTS');
      for (const [json, field] of [
        [{ path: '/p' }, 'name'],
        [{ name: 'x' }, 'path'],
        [{ name: 'x', path: 'relative/path' }, 'path'],
        [{ name: 7, path: '/p' }, 'name'],
      ] as const) {
        const answer = await gw.call(admin, 'POST', '/admin/reference-genomes', { json });
        assert.equal(answer.status, 400, field);
        assert.equal(answer.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
        assert.equal(answer.body.field, field);
      }

      const renamed = await gw.ok(admin, 'PATCH', `/admin/reference-genomes/${made.id}`, {
        json: { name: 'Zea mays B73 v5' },
      });
      assert.equal(renamed.name, 'Zea mays B73 v5');
      assert.equal(renamed.path, made.path);
      const moved = await gw.ok(admin, 'PATCH', `/admin/reference-genomes/${made.id}`, {
        json: { path: '/platform/genomes/zea_mays/b73_v5' },
      });
      assert.equal(moved.path, '/platform/genomes/zea_mays/b73_v5');
      assert.deepEqual(await gw.ok('alice', 'GET', `/reference-genomes/${made.id}`), moved);
      assert.equal(
        (
          await gw.call(admin, 'PATCH', `/admin/reference-genomes/${made.id}`, {
            json: { name: 'Arabidopsis TAIR10' },
          })
        ).body.error_code,
        'ERR_EXISTS',
      );

      // Deleted: marked, listed only with deleted=true; its name is free again.
      const deleted = await gw.ok(admin, 'DELETE', `/admin/reference-genomes/${other.id}`);
      assert.equal(deleted.deleted, true);
      assert.deepEqual(await names(), ['Zea mays B73 v5']);
      assert.deepEqual(await names('?deleted=true'), ['Arabidopsis TAIR10', 'Zea mays B73 v5']);
      assert.equal((await gw.ok('alice', 'GET', `/reference-genomes/${other.id}`)).deleted, true);
      const again = await add('Arabidopsis TAIR10', '/platform/genomes/arabidopsis/tair10-fixed');
      assert.notEqual(again.id, other.id);
      // Restored by PATCH deleted=false only while its name is free.
      const restore = await gw.call(admin, 'PATCH', `/admin/reference-genomes/${other.id}`, {
        json: { deleted: false },
      });
      assert.equal(restore.body.error_code, 'ERR_EXISTS');

      // permanent=true removes it.
      await gw.ok(admin, 'DELETE', `/admin/reference-genomes/${other.id}?permanent=true`);
      assert.equal((await gw.call('alice', 'GET', `/reference-genomes/${other.id}`)).status, 404);
      assert.deepEqual(await names('?deleted=true'), ['Arabidopsis TAIR10', 'Zea mays B73 v5']);
      assert.equal(
        (await gw.call(admin, 'DELETE', `/admin/reference-genomes/${randomUUID()}`)).status,
        404,
      );
    });

    test('users other than administrators are refused the admin routes', async () => {
      const genome = await add('Homo sapiens GRCh38', '/platform/genomes/human/grch38');
      for (const [method, route, json] of [
        ['POST', '/admin/reference-genomes', { name: 'mine', path: '/p' }],
        ['PATCH', `/admin/reference-genomes/${genome.id}`, { name: 'mine' }],
        ['DELETE', `/admin/reference-genomes/${genome.id}`, undefined],
      ] as const) {
        const answer = await gw.call('bob', method, route, json ? { json } : {});
        assert.equal(answer.status, 403, `${method} ${route}`);
      }
      assert.equal((await gw.call(null, 'GET', '/reference-genomes')).status, 401);
      const still = await gw.ok('bob', 'GET', `/reference-genomes/${genome.id}`);
      assert.equal(still.name, 'Homo sapiens GRCh38');
      assert.equal(still.deleted, false);
    });

    test('a launch form takes a reference genome; the job gets its path', async () => {
      const genome = await add('Oryza sativa IRGSP-1.0', '/platform/genomes/rice/irgsp1');
      const doomed = await add('Oryza sativa old', '/platform/genomes/rice/old');
      await gw.ok(admin, 'DELETE', `/admin/reference-genomes/${doomed.id}`);

      const app = await gw.ok('carol', 'POST', '/apps/de', {
        json: {
          name: 'count against a genome',
          description: 'word count with a reference genome',
          tools: [{ id: wordCountTool }],
          groups: [
            {
              label: 'Inputs',
              parameters: [
                { type: 'FileInput', name: 'input', label: 'Text', required: true },
                { type: 'ReferenceGenome', name: 'genome', label: 'Genome', required: true },
              ],
            },
          ],
        },
      });
      const [inputKey, genomeKey] = app.groups[0].parameters.map((parameter: any) => parameter.id);
      assert.equal(app.groups[0].parameters[1].type, 'ReferenceGenome');
      await gw.upload('carol', gw.home('carol'), 'reads.txt', 'a few words here\n');
      const launch = (genomeValue: unknown) =>
        gw.call('carol', 'POST', '/analyses', {
          json: {
            system_id: 'de',
            app_id: app.id,
            name: 'genome run',
            output_dir: gw.home('carol'),
            config: { [inputKey]: `${gw.home('carol')}/reads.txt`, [genomeKey]: genomeValue },
          },
        });

      const accepted = await launch(genome.id);
      assert.equal(accepted.status, 200, accepted.text);
      const done = await eventually(
        async () => {
          const listed = (
            await gw.ok(
              'carol',
              'GET',
              `/analyses?filter=${encodeURIComponent(JSON.stringify([{ field: 'id', value: accepted.body.id }]))}`,
            )
          ).analyses[0];
          return ['Completed', 'Failed'].includes(listed?.status) ? listed : undefined;
        },
        10_000,
        'the analysis to end',
      );
      assert.equal(done.status, 'Completed');
      const parameters = (await gw.ok('carol', 'GET', `/analyses/${accepted.body.id}/parameters`))
        .parameters;
      const chosen = parameters.find((parameter: any) => parameter.full_param_id === genomeKey);
      assert.equal(chosen.param_type, 'ReferenceGenome');
      assert.deepEqual(chosen.param_value.value, {
        id: genome.id,
        name: genome.name,
        path: '/platform/genomes/rice/irgsp1',
      });

      // The genome object a client lists is taken as well.
      assert.equal((await launch(genome)).status, 200);

      for (const value of [randomUUID(), doomed.id, 'rice', { name: genome.name }]) {
        const refused = await launch(value);
        assert.equal(refused.status, 400, JSON.stringify(value));
        assert.equal(refused.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
        assert.match(refused.body.reason, /Genome/);
        assert.deepEqual(
          refused.body.invalid.map((entry: any) => entry.id),
          [genomeKey],
        );
      }
      // Required: leaving it out is a missing parameter.
      const missing = await launch(undefined);
      assert.equal(missing.status, 400);
      assert.deepEqual(
        missing.body.missing.map((entry: any) => entry.id),
        [genomeKey],
      );
    });
  });
}
