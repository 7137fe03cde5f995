// Quick launches through the gateway and the embedded analyses service, on both engines — created
// private or public for built-in apps with files uploaded here; who sees which; the submission
// checks (visible app, readable paths, required parameters may be absent); the launch form filled
// from the submission, each path in the shape the web UI reads a starting value (Sonora
// src/components/apps/launch/formatters.js: `defaultValue.path`, a list for MultiFileSelector);
// changes by the creator only.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../src/backends/apps/catalog/built-in.ts';
import { requiredInCi } from '../../support/gateway.ts';
import { startMetadataGateway, type MetadataGateway } from '../../support/metadata-gateway.ts';

const wordCount = builtInApps.find((app) => app.name === 'Word count')!;
const concatenate = builtInApps.find((app) => app.name === 'Concatenate')!;
/** The submission key of an app's parameter: `<step id>_<parameter id>`. */
const key = (app: typeof wordCount, name: string) => {
  const parameter = app.definition.groups
    .flatMap((group) => group.parameters)
    .find((each) => each.name === name)!;
  return `${app.definition.steps[0]!.id}_${parameter.id}`;
};
const wordCountInput = key(wordCount, 'input');
const concatenateInputs = key(concatenate, 'inputs');
const concatenateOutput = key(concatenate, 'output');

const submission = (
  app: typeof wordCount,
  config: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) => ({
  system_id: 'de',
  app_id: app.id,
  name: `${app.name} run`,
  debug: false,
  notify: true,
  output_dir: '/platform/home/alice/analyses',
  config,
  ...extra,
});

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`quick launches (${engine})`, () => {
    let gw: MetadataGateway;
    let domain: string;
    let privateFile: string; // alice's, nobody else reads it
    let publicFiles: string[]; // alice's, readable by everyone
    let aliceOnly: any; // alice's private quick launch of Word count
    let everyones: any; // alice's public quick launch of Concatenate

    before(async () => {
      const started = await startMetadataGateway({ engine });
      if (!started) return;
      gw = started;
      domain = gw.running.gateway.config.uidDomain;
      privateFile = (await gw.upload('alice', gw.home('alice'), 'private.txt', 'one two three\n'))
        .path;
      publicFiles = [
        (await gw.upload('alice', gw.home('alice'), 'first.txt', 'first\n')).path,
        (await gw.upload('alice', gw.home('alice'), 'second.txt', 'second\n')).path,
      ];
      await gw.ok('alice', 'POST', '/secured/filesystem/anon-files', {
        json: { paths: publicFiles },
      });
      await gw.ok('alice', 'GET', '/apps'); // the apps service is up and has installed its apps
    });
    after(async () => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    test('alice creates a private and a public quick launch; the gateway names the creator', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const privateBody = {
        name: 'count my notes',
        description: 'wc of private.txt',
        app_id: wordCount.id,
        is_public: false,
        submission: submission(wordCount, { [wordCountInput]: privateFile }),
      };
      // A creator sent by the client is not believed.
      aliceOnly = await gw.ok('alice', 'POST', '/quicklaunches', {
        json: { ...privateBody, creator: `mallory@${domain}` },
      });
      assert.deepEqual(
        { ...aliceOnly, id: undefined },
        {
          ...privateBody,
          id: undefined,
          creator: `alice@${domain}`,
          app_version_id: wordCount.versionId,
        },
      );
      assert.match(aliceOnly.id, /^[0-9a-f-]{36}$/);

      const publicBody = {
        name: 'join the public files',
        description: '',
        app_id: concatenate.id,
        app_version_id: concatenate.versionId,
        is_public: true,
        submission: submission(
          concatenate,
          { [concatenateInputs]: publicFiles, [concatenateOutput]: 'joined.txt' },
          { debug: true },
        ),
      };
      everyones = await gw.ok('alice', 'POST', '/quicklaunches', { json: publicBody });
      assert.deepEqual(
        { ...everyones, id: undefined },
        { ...publicBody, id: undefined, creator: `alice@${domain}` },
      );
      assert.deepEqual(await gw.ok('alice', 'GET', `/quicklaunches/${aliceOnly.id}`), aliceOnly);
    });

    test("alice's private quick launch is invisible to bob; the public one is visible to all", async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const ids = (list: any[]) => list.map((each) => each.id).sort();
      assert.deepEqual(
        ids(await gw.ok('alice', 'GET', '/quicklaunches')),
        ids([aliceOnly, everyones]),
      );
      assert.deepEqual(ids(await gw.ok('bob', 'GET', '/quicklaunches')), [everyones.id]);

      for (const route of [
        `/quicklaunches/${aliceOnly.id}`,
        `/quicklaunches/${aliceOnly.id}/app-info`,
      ]) {
        const answer = await gw.call('bob', 'GET', route);
        assert.equal(answer.status, 404, route);
        assert.equal(answer.body.error_code, 'ERR_NOT_FOUND');
      }
      assert.deepEqual(await gw.ok('bob', 'GET', `/quicklaunches/apps/${wordCount.id}`), []);
      assert.deepEqual(ids(await gw.ok('alice', 'GET', `/quicklaunches/apps/${wordCount.id}`)), [
        aliceOnly.id,
      ]);

      assert.deepEqual(await gw.ok('bob', 'GET', `/quicklaunches/${everyones.id}`), everyones);
      assert.equal(
        (await gw.ok('bob', 'GET', `/quicklaunches/${everyones.id}/app-info`)).id,
        concatenate.id,
      );
      assert.deepEqual(await gw.ok('bob', 'GET', `/quicklaunches/apps/${concatenate.id}`), [
        everyones,
      ]);
      // The per-app listing needs no account: anonymous callers see public quick launches.
      assert.deepEqual(await gw.ok(null, 'GET', `/quicklaunches/apps/${concatenate.id}`), [
        everyones,
      ]);
      assert.deepEqual(await gw.ok(null, 'GET', `/quicklaunches/apps/${wordCount.id}`), []);
      // Everything else needs one.
      assert.equal((await gw.call(null, 'GET', '/quicklaunches')).status, 401);
    });

    test('required parameters may be absent', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const required = wordCount.definition.groups[0]!.parameters[0]!;
      assert.equal(required.required, true, 'the Word count input is required');
      const empty = await gw.ok('bob', 'POST', '/quicklaunches', {
        json: {
          name: 'blank count',
          app_id: wordCount.id,
          is_public: false,
          submission: submission(wordCount, {}),
        },
      });
      assert.deepEqual(empty.submission.config, {});
      const noConfig = await gw.ok('bob', 'POST', '/quicklaunches', {
        json: {
          name: 'no config',
          app_id: wordCount.id,
          is_public: true,
          submission: { app_id: wordCount.id },
        },
      });
      assert.deepEqual(noConfig.submission, { app_id: wordCount.id });
      assert.equal(noConfig.is_public, true);
      assert.equal(noConfig.creator, `bob@${domain}`);
      const form = await gw.ok('bob', 'GET', `/quicklaunches/${empty.id}/app-info`);
      const parameter = form.groups[0].parameters[0];
      assert.equal(parameter.id, wordCountInput);
      assert.equal('value' in parameter, false, 'an absent value stays absent');
    });

    test('paths the creator cannot read are refused, naming them', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const missing = `${gw.home('alice')}/no-such-file.txt`;
      const body = (path: string | string[], app = wordCount, isPublic = false) => ({
        name: 'borrowed',
        app_id: app.id,
        is_public: isPublic,
        submission: submission(app, {
          [app === wordCount ? wordCountInput : concatenateInputs]: path,
        }),
      });
      const bobs = await gw.call('bob', 'POST', '/quicklaunches', { json: body(privateFile) });
      assert.equal(bobs.status, 400);
      assert.equal(bobs.body.error_code, 'ERR_NOT_READABLE');
      assert.deepEqual(bobs.body.paths, [privateFile]);
      assert.match(bobs.body.reason, new RegExp(privateFile));

      // Among several, only the unreadable ones are named; one that does not exist is unreadable too.
      const several = await gw.call('alice', 'POST', '/quicklaunches', {
        json: body([publicFiles[0]!, missing], concatenate),
      });
      assert.equal(several.status, 400);
      assert.deepEqual(several.body.paths, [missing]);

      // Once alice shares the file, bob may name it.
      await gw.ok('alice', 'POST', '/secured/share', {
        json: { sharing: [{ user: 'bob', paths: [{ path: privateFile, permission: 'read' }] }] },
      });
      const shared = await gw.ok('bob', 'POST', '/quicklaunches', { json: body(privateFile) });
      assert.equal(shared.creator, `bob@${domain}`);
      // Still not for everyone: shared with bob is not public.
      const asPublic = await gw.call('bob', 'POST', '/quicklaunches', {
        json: body(privateFile, wordCount, true),
      });
      assert.equal(asPublic.status, 400);
      assert.deepEqual(asPublic.body.paths, [privateFile]);
    });

    test('a public quick launch may not name a private file', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const json = {
        name: 'public count',
        app_id: concatenate.id,
        is_public: true,
        submission: submission(concatenate, { [concatenateInputs]: [publicFiles[0], privateFile] }),
      };
      const refused = await gw.call('alice', 'POST', '/quicklaunches', { json });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.error_code, 'ERR_NOT_READABLE');
      assert.deepEqual(refused.body.paths, [privateFile]);
      assert.equal(refused.body.public, true);
      // Turning alice's private one public is refused the same way, and leaves it private.
      const patched = await gw.call('alice', 'PATCH', `/quicklaunches/${aliceOnly.id}`, {
        json: { is_public: true },
      });
      assert.equal(patched.status, 400);
      assert.deepEqual(patched.body.paths, [privateFile]);
      assert.equal(
        (await gw.ok('alice', 'GET', `/quicklaunches/${aliceOnly.id}`)).is_public,
        false,
      );
    });

    test('the launch form carries the saved values', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const form = await gw.ok('bob', 'GET', `/quicklaunches/${everyones.id}/app-info`);
      assert.equal(form.version_id, concatenate.versionId);
      assert.equal(form.debug, true);
      const parameters = form.groups.flatMap((group: any) => group.parameters);
      const definition = concatenate.definition.groups.flatMap((group) => group.parameters);
      assert.equal(parameters.length, definition.length);
      const config = everyones.submission.config;
      for (const parameter of parameters) {
        const saved = config[parameter.id];
        // A MultiFileSelector's paths are `{path: [...]}`, as the web UI's launch form reads a
        // starting value (Sonora src/components/apps/launch/formatters.js, defaultValue.path).
        const expected = parameter.type === 'MultiFileSelector' ? { path: saved } : saved;
        assert.deepEqual(parameter.value, expected, parameter.id);
        assert.deepEqual(parameter.defaultValue, expected, parameter.id);
      }

      const wordForm = await gw.ok('alice', 'GET', `/quicklaunches/${aliceOnly.id}/app-info`);
      assert.equal(wordForm.debug, false);
      assert.deepEqual(wordForm.groups[0].parameters[0].value, { path: privateFile });

      // A parameter the submission leaves out keeps the app's default.
      const partial = await gw.ok('alice', 'POST', '/quicklaunches', {
        json: {
          name: 'inputs only',
          app_id: concatenate.id,
          is_public: false,
          submission: submission(concatenate, { [concatenateInputs]: [publicFiles[1]] }),
        },
      });
      const partialForm = await gw.ok('alice', 'GET', `/quicklaunches/${partial.id}/app-info`);
      const output = partialForm.groups[0].parameters.find(
        (parameter: any) => parameter.id === concatenateOutput,
      );
      const appDefault = concatenate.definition.groups[0]!.parameters.find(
        (parameter) => parameter.name === 'output',
      )!.defaultValue;
      assert.equal(output.defaultValue, appDefault);
      assert.equal('value' in output, false);
    });

    test('only the creator updates or deletes a quick launch', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const bobPatch = await gw.call('bob', 'PATCH', `/quicklaunches/${everyones.id}`, {
        json: { name: 'mine now' },
      });
      assert.equal(bobPatch.status, 403);
      assert.equal(bobPatch.body.error_code, 'ERR_NOT_OWNER');
      assert.equal(
        (
          await gw.call('bob', 'PATCH', `/quicklaunches/${aliceOnly.id}`, {
            json: { name: 'mine now' },
          })
        ).status,
        404,
      );
      assert.equal((await gw.call('bob', 'DELETE', `/quicklaunches/${everyones.id}`)).status, 403);
      assert.equal((await gw.call('bob', 'DELETE', `/quicklaunches/${aliceOnly.id}`)).status, 404);

      // A patch replaces the fields it names; a creator in it is not taken.
      const renamed = await gw.ok('alice', 'PATCH', `/quicklaunches/${aliceOnly.id}`, {
        json: { name: 'count notes', description: 'renamed', creator: `bob@${domain}` },
      });
      assert.deepEqual(renamed, { ...aliceOnly, name: 'count notes', description: 'renamed' });
      const newSubmission = submission(wordCount, { [wordCountInput]: publicFiles[0] });
      const resubmitted = await gw.ok('alice', 'PATCH', `/quicklaunches/${aliceOnly.id}`, {
        json: { submission: newSubmission, is_public: true },
      });
      assert.deepEqual(resubmitted, { ...renamed, submission: newSubmission, is_public: true });
      assert.deepEqual(
        await gw.ok('bob', 'GET', `/quicklaunches/${aliceOnly.id}`),
        resubmitted,
        'now public, bob sees it',
      );

      const gone = await gw.ok('alice', 'DELETE', `/quicklaunches/${aliceOnly.id}`);
      assert.deepEqual(gone, { id: aliceOnly.id });
      assert.equal((await gw.call('alice', 'GET', `/quicklaunches/${aliceOnly.id}`)).status, 404);
      assert.equal(
        (await gw.call('alice', 'DELETE', `/quicklaunches/${aliceOnly.id}`)).status,
        404,
      );
    });

    test('unknown apps, versions and bad submissions are refused', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const unknownApp = await gw.call('alice', 'POST', '/quicklaunches', {
        json: {
          name: 'x',
          app_id: '00000000-0000-4000-8000-000000000000',
          is_public: false,
          submission: {},
        },
      });
      assert.equal(unknownApp.status, 404);
      assert.equal(unknownApp.body.error_code, 'ERR_NOT_FOUND');
      const unknownVersion = await gw.call('alice', 'POST', '/quicklaunches', {
        json: {
          name: 'x',
          app_id: wordCount.id,
          app_version_id: concatenate.versionId,
          is_public: false,
          submission: {},
        },
      });
      assert.equal(unknownVersion.status, 404);
      assert.equal(
        (await gw.call('bob', 'GET', `/quicklaunches/apps/00000000-0000-4000-8000-000000000000`))
          .status,
        404,
      );
      for (const json of [
        { app_id: wordCount.id, submission: {} }, // no name
        { name: 'x', app_id: wordCount.id, submission: 'not an object' },
        { name: 'x', app_id: wordCount.id, submission: { config: [] } },
        { name: 'x', app_id: wordCount.id, submission: { config: { [wordCountInput]: 42 } } },
        {
          name: 'x',
          app_id: wordCount.id,
          submission: { config: { [wordCountInput]: 'relative/path.txt' } },
        },
        // The submission's own fields, when there, have the types a launch reads.
        { name: 'x', app_id: wordCount.id, submission: { debug: 'yes' } },
        { name: 'x', app_id: wordCount.id, submission: { app_id: 7 } },
        { name: 'x', app_id: wordCount.id, submission: { output_dir: ['/platform'] } },
      ]) {
        const answer = await gw.call('alice', 'POST', '/quicklaunches', { json });
        assert.equal(answer.status, 400, JSON.stringify(json));
        assert.equal(answer.body.error_code, 'ERR_BAD_OR_MISSING_FIELD', JSON.stringify(json));
      }
    });

    test('a submission without its own fields is kept and answered as given', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      // The spec lets a quick launch's submission leave things out: the answers (checked against
      // their documents in `npm test`) must not claim a field the creator did not give.
      const partial = await gw.ok('alice', 'POST', '/quicklaunches', {
        json: {
          name: 'only a value',
          app_id: wordCount.id,
          is_public: false,
          submission: { config: { [wordCountInput]: privateFile } },
        },
      });
      assert.deepEqual(partial.submission, { config: { [wordCountInput]: privateFile } });
      const read = await gw.ok('alice', 'GET', `/quicklaunches/${partial.id}`);
      assert.deepEqual(read.submission, partial.submission);
      const listed = await gw.ok('alice', 'GET', '/quicklaunches');
      assert.deepEqual(
        listed.find((each: { id: string }) => each.id === partial.id)?.submission,
        partial.submission,
      );
    });

    test('the service requires its user parameter', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const response = await gw.running.gateway.forwarder.call('analyses', {
        method: 'GET',
        path: '/quicklaunches',
        identityStyle: 'none',
      });
      assert.equal(response.statusCode, 400);
      assert.equal(
        ((await response.body.json()) as { message: string }).message,
        'user query parameter is required',
      );
    });
  });
}
