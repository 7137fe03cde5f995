// The relaunch form (`GET /analyses/{id}/relaunch-info`) in the shape the DE web UI reads it, on
// both engines. Sonora's src/components/apps/launch/formatters.js (initGroupValues) takes each
// field's starting value from the parameter's `defaultValue`: a FileInput's or FolderInput's path
// from `defaultValue.path`, a MultiFileSelector's paths from `defaultValue.path` (a list of
// strings), a reference genome by `defaultValue.id` (ReferenceGenomeSelect.js), a selection's
// choice by `defaultValue.id` or `defaultValue.value`; a plain string leaves the field empty. The
// UI then submits (formatSubmission) plain path strings, the path list, the chosen genome and
// argument objects in `config`: that submission is launched and completes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { endedAnalysis } from '../../../support/analyses.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

const [, wordCount, concatenate, checksum] = builtInApps as [
  (typeof builtInApps)[0],
  (typeof builtInApps)[0],
  (typeof builtInApps)[0],
  (typeof builtInApps)[0],
];
const key = (app: (typeof builtInApps)[0], name: string) => {
  const parameter = app.definition.groups
    .flatMap((group) => group.parameters)
    .find((candidate) => candidate.name === name)!;
  return `${app.definition.steps[0]!.id}_${parameter.id}`;
};

/** What the UI puts in `config` for a parameter shown with this starting value (formatSubmission). */
function submitted(parameter: any): unknown {
  const shown = parameter.defaultValue;
  switch (parameter.type) {
    case 'FileInput':
    case 'FolderInput':
      return shown?.path ?? '';
    case 'MultiFileSelector':
      return (shown?.path ?? []).map((path: string) => path);
    case 'TextSelection':
    case 'IntegerSelection':
    case 'DoubleSelection':
      return parameter.arguments.find(
        (argument: any) => argument.id === shown?.id || argument.value === shown?.value,
      );
    default:
      return shown;
  }
}

for (const engine of engines) {
  describe(
    `the relaunch form as the web UI reads it (${engine})`,
    { skip: skipWithout(engine) },
    () => {
      let gw: MetadataGateway;
      before(async () => {
        gw = (await startMetadataGateway({ engine }))!;
      });
      after(async () => gw?.close());

      const launch = async (user: string, appId: string, config: Record<string, unknown>) => {
        const launched = await gw.ok(user, 'POST', '/analyses', {
          json: { system_id: 'de', app_id: appId, name: 'form', output_dir: gw.home(user), config },
        });
        const ended = await endedAnalysis(gw, user, launched.id, 10_000);
        assert.equal(ended.status, 'Completed', JSON.stringify(ended));
        return launched.id as string;
      };
      /** The form's parameters by id, and the config the UI would submit from it. */
      const relaunchForm = async (user: string, id: string) => {
        const form = await gw.ok(user, 'GET', `/analyses/${id}/relaunch-info`);
        const parameters = new Map<string, any>(
          form.groups.flatMap((group: any) => group.parameters).map((p: any) => [p.id, p]),
        );
        const config = Object.fromEntries(
          [...parameters.values()].map((parameter) => [parameter.id, submitted(parameter)]),
        );
        return { parameters, config };
      };

      test('built-in apps: file, file list and selection come back as the UI reads them', async () => {
        const home = gw.home('alice');
        await gw.upload('alice', home, 'a.txt', 'one two\n');
        await gw.upload('alice', home, 'b.txt', 'three\n');

        const counted = await launch('alice', wordCount.id, {
          [key(wordCount, 'input')]: `${home}/a.txt`,
        });
        const countForm = await relaunchForm('alice', counted);
        const input = countForm.parameters.get(key(wordCount, 'input'));
        assert.deepEqual(input.defaultValue, { path: `${home}/a.txt` });
        assert.deepEqual(input.value, { path: `${home}/a.txt` });
        assert.deepEqual(countForm.config, { [key(wordCount, 'input')]: `${home}/a.txt` });
        await launch('alice', wordCount.id, countForm.config);

        const joined = await launch('alice', concatenate.id, {
          [key(concatenate, 'inputs')]: [`${home}/b.txt`, `${home}/a.txt`],
        });
        const joinForm = await relaunchForm('alice', joined);
        assert.deepEqual(joinForm.parameters.get(key(concatenate, 'inputs')).defaultValue, {
          path: [`${home}/b.txt`, `${home}/a.txt`],
        });
        // The output name was left to the app's default, which stays as it was.
        assert.equal(
          joinForm.parameters.get(key(concatenate, 'output')).defaultValue,
          'concatenated.txt',
        );
        await launch('alice', concatenate.id, joinForm.config);

        // A selection saved as the CLI sends it (the choice's value) comes back as the argument.
        const summed = await launch('alice', checksum.id, {
          [key(checksum, 'input')]: `${home}/b.txt`,
          [key(checksum, 'algorithm')]: 'sha256',
        });
        const sumForm = await relaunchForm('alice', summed);
        const algorithm = sumForm.parameters.get(key(checksum, 'algorithm'));
        assert.equal(algorithm.defaultValue.id, '6e6b0d43-5f5a-4a99-8e95-4a5d5e000002');
        assert.equal(algorithm.defaultValue.value, 'sha256');
        assert.equal((sumForm.config[key(checksum, 'algorithm')] as any).value, 'sha256');
        const again = await launch('alice', checksum.id, sumForm.config);
        const listing = await gw.ok('alice', 'GET', `/analyses/${again}/parameters`);
        assert.ok(
          listing.parameters.some((p: any) =>
            JSON.stringify(p.param_value.value).includes('sha256'),
          ),
        );
      });

      test('folder input, reference genome and number selection of a user app', async () => {
        const genome = await gw.ok(admin, 'POST', '/admin/reference-genomes', {
          json: { name: 'Rice', path: '/platform/genomes/rice' },
        });
        const app = await gw.ok('bob', 'POST', '/apps/de', {
          json: {
            name: 'every input kind',
            description: 'word count with more inputs than it reads',
            tools: [{ id: wordCount.tool.id }],
            groups: [
              {
                label: 'Inputs',
                parameters: [
                  { type: 'FileInput', name: 'input', label: 'Text', required: true },
                  { type: 'FolderInput', name: 'folder', label: 'Folder', required: true },
                  { type: 'MultiFileSelector', name: 'more', label: 'More', required: false },
                  { type: 'ReferenceGenome', name: 'genome', label: 'Genome', required: true },
                  {
                    type: 'IntegerSelection',
                    name: 'level',
                    label: 'Level',
                    arguments: [
                      {
                        id: 'a0c1d2e3-0000-4000-8000-000000000001',
                        name: '1',
                        value: '1',
                        display: 'one',
                      },
                      {
                        id: 'a0c1d2e3-0000-4000-8000-000000000002',
                        name: '2',
                        value: '2',
                        display: 'two',
                      },
                    ],
                  },
                ],
              },
            ],
          },
        });
        const [inputKey, folderKey, moreKey, genomeKey, levelKey] = app.groups[0].parameters.map(
          (parameter: any) => parameter.id,
        );
        const home = gw.home('bob');
        await gw.upload('bob', home, 'words.txt', 'a few words\n');
        const first = await launch('bob', app.id, {
          [inputKey]: `${home}/words.txt`,
          [folderKey]: home,
          [moreKey]: `${home}/words.txt`,
          [genomeKey]: genome.id,
          [levelKey]: '2',
        });
        const form = await relaunchForm('bob', first);
        assert.deepEqual(form.parameters.get(folderKey).defaultValue, { path: home });
        assert.deepEqual(form.parameters.get(moreKey).defaultValue, {
          path: [`${home}/words.txt`],
        });
        assert.deepEqual(form.parameters.get(genomeKey).defaultValue, {
          id: genome.id,
          name: 'Rice',
          path: '/platform/genomes/rice',
        });
        assert.equal(
          form.parameters.get(levelKey).defaultValue.id,
          'a0c1d2e3-0000-4000-8000-000000000002',
        );
        // The UI submits the genome and the argument as the objects it shows.
        assert.equal((form.config[genomeKey] as any).id, genome.id);
        assert.equal((form.config[levelKey] as any).value, '2');
        assert.equal(form.config[folderKey], home);
        await launch('bob', app.id, form.config);
      });
    },
  );
}
