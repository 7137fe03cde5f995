// Pipelines in the embedded apps service (docs/api/apps.md "Pipelines"), through the gateway on
// each engine: a pipeline made of two single-step apps (made with the app editor), its step named
// by the app's step (`task_id` from `/tasks`) or by the app's id, an output of the first mapped onto
// an input of the second, stored as the job runner reads it; bad steps and mappings refused naming
// the field; the editor's view read back and saved over; versions added, replaced, read, copied;
// copies; who may edit (a public pipeline no longer); the listing's step count and eligibility;
// the launch form without the mapped input; a launch that need not give the mapped input but must
// give the others.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import type { AppDefinition } from '../../../../src/backends/apps/index.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

const wordCountTool = builtInApps[1]!.tool.id;
const component = (name: string, parameters: Record<string, unknown>[]) => ({
  name,
  description: `${name}, made in a test`,
  tools: [{ id: wordCountTool }],
  groups: [{ label: `${name} parameters`, parameters }],
});
const user = (id: string) => ({ id, source_id: 'ldap' });

for (const engine of engines) {
  describe(`pipelines (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    // Two single-step apps of alice's: "Split" writes a file, "Count" reads one.
    let split: any;
    let count: any;
    let splitTask: any;
    let countTask: any;
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
      for (const name of ['alice', 'bob', 'carol', admin])
        await gw.ok(name, 'GET', '/subjects?search=nobody-matches-this');
      split = await gw.ok('alice', 'POST', '/apps/de', {
        json: component('Split', [
          { type: 'FileInput', name: 'in', label: 'Input', required: true },
          { type: 'FileOutput', name: 'out', label: 'Pieces', defaultValue: 'pieces.txt' },
        ]),
      });
      count = await gw.ok('alice', 'POST', '/apps/de', {
        json: component('Count', [
          { type: 'FileInput', name: 'input', label: 'Text', required: true },
          { type: 'Text', name: '--mode', label: 'Mode', required: true },
        ]),
      });
      splitTask = (await gw.ok('alice', 'GET', `/apps/de/${split.id}/tasks`)).tasks[0];
      countTask = (await gw.ok('alice', 'GET', `/apps/de/${count.id}/tasks`)).tasks[0];
    });
    after(async () => gw?.close());

    const splitOutput = () => splitTask.outputs[0].id as string;
    const countInput = () => countTask.inputs[0].id as string;
    /** The body the pipeline editor sends: Split's step by its task, Count by its app id. */
    const pipeline = (name: string, extra: Record<string, unknown> = {}) => ({
      name,
      description: `${name}, a pipeline`,
      steps: [
        { name: 'split', description: 'first', task_id: splitTask.id, app_type: 'DE' },
        { name: 'count', description: 'second', task_id: count.id, app_type: 'DE' },
      ],
      mappings: [{ source_step: 0, target_step: 1, map: { [countInput()]: splitOutput() } }],
      ...extra,
    });
    const stored = async (versionId: string) =>
      JSON.parse(
        (await gw.running.gateway.store.db
          .selectFrom('app_versions')
          .select('definition')
          .where('id', '=', versionId)
          .executeTakeFirstOrThrow())!.definition,
      ) as AppDefinition;
    const refused = async (
      caller: string,
      method: string,
      route: string,
      status: number,
      code: string,
      json?: unknown,
    ) => {
      const answer = await gw.call(caller, method, route, json === undefined ? {} : { json });
      assert.equal(answer.status, status, `${caller} ${method} ${route}: ${answer.text}`);
      assert.equal(answer.body.error_code, code, `${caller} ${method} ${route}: ${answer.text}`);
      return answer.body;
    };
    const badField = async (json: unknown, field: string) => {
      const body = await refused(
        'alice',
        'POST',
        '/apps/pipelines',
        400,
        'ERR_BAD_OR_MISSING_FIELD',
        json,
      );
      assert.equal(body.field, field, body.reason);
    };

    test('made from two apps, stored as the job runner reads it, read back in the editor', async () => {
      const made = await gw.ok('alice', 'POST', '/apps/pipelines', {
        json: pipeline('Split then count'),
      });
      assert.equal(made.name, 'Split then count');
      assert.equal(made.version, '1.0');
      assert.deepEqual(
        made.steps.map((step: any) => [step.name, step.task_id, step.app_id, step.app_type]),
        [
          ['split', splitTask.id, split.id, 'DE'],
          ['count', countTask.id, count.id, 'DE'],
        ],
        "a step is answered with its app's step as task_id, however it was named",
      );
      assert.deepEqual(made.mappings, [
        { source_step: 0, target_step: 1, map: { [countInput()]: splitOutput() } },
      ]);
      assert.deepEqual(
        made.tasks.map((task: any) => task.outputs.map((output: any) => output.id)),
        [[splitOutput()], []],
      );

      const definition = await stored(made.version_id);
      assert.equal(definition.steps.length, 2);
      for (const [index, [app, task]] of [
        [split, splitTask],
        [count, countTask],
      ].entries()) {
        const step = definition.steps[index]!;
        assert.match(step.id, /^[0-9a-f-]{36}$/);
        assert.notEqual(step.id, task.id, 'a pipeline step has an id of its own');
        assert.equal(step.tool_id, wordCountTool);
        assert.equal(step.app_id, app.id);
        assert.equal(step.app_version_id, app.version_id);
      }
      const idsOf = async (app: any) =>
        (await stored(app.version_id)).groups[0]!.parameters.map((parameter) => parameter.id);
      assert.deepEqual(
        definition.groups.map((group) => [group.step_number, group.parameters.map((p) => p.id)]),
        [
          [1, await idsOf(split)],
          [2, await idsOf(count)],
        ],
        "the apps' groups under their steps, parameter ids kept",
      );
      assert.deepEqual(definition.mappings, [
        { source_step: 0, target_step: 1, map: { [splitOutput()]: countInput() } },
      ]);

      // Read back: the same view; the other direction of a map entry is taken too.
      const ui = await gw.ok('alice', 'GET', `/apps/pipelines/${made.id}/ui`);
      assert.deepEqual(ui, made);
      const reversed = await gw.ok('alice', 'POST', '/apps/pipelines', {
        json: pipeline('Mapped output first', {
          mappings: [{ source_step: 0, target_step: 1, map: { [splitOutput()]: countInput() } }],
        }),
      });
      assert.deepEqual(reversed.mappings, made.mappings);
    });

    test('bad steps and mappings: 400 naming the field', async () => {
      const body = pipeline('Refused');
      const mapping = (fields: Record<string, unknown>) => ({
        ...body,
        mappings: [
          { source_step: 0, target_step: 1, map: { [countInput()]: splitOutput() }, ...fields },
        ],
      });
      await badField({ ...body, name: '' }, 'name');
      await badField({ ...body, steps: [] }, 'steps');
      await badField({ ...body, steps: [{ name: 'nothing' }] }, 'steps[0].task_id');
      await badField({ ...body, steps: [{ task_id: randomUUID() }] }, 'steps[0].task_id');
      await badField({ ...body, steps: [{ app_id: randomUUID() }] }, 'steps[0].app_id');
      await badField(
        { ...body, steps: [{ task_id: 'wc', app_type: 'External' }] },
        'steps[0].app_type',
      );
      await badField(
        { ...body, steps: [{ app_id: split.id, app_version_id: randomUUID() }] },
        'steps[0].app_version_id',
      );
      // Not single-step apps: two tools, or a pipeline.
      const twoSteps = await gw.ok('alice', 'POST', '/apps/de', {
        json: {
          ...component('Two steps', []),
          tools: [{ id: wordCountTool }, { id: wordCountTool }],
        },
      });
      await badField({ ...body, steps: [{ task_id: twoSteps.id }] }, 'steps[0]');
      const inner = await gw.ok('alice', 'POST', '/apps/pipelines', {
        json: { ...body, name: 'Inner', steps: [body.steps[0]], mappings: [] },
      });
      await badField({ ...body, steps: [{ app_id: inner.id }, body.steps[1]] }, 'steps[0]');
      // An app of someone else's the caller does not see.
      const bobs = await gw.ok('bob', 'POST', '/apps/de', { json: component('Bob private', []) });
      await badField({ ...body, steps: [{ task_id: bobs.id }, body.steps[1]] }, 'steps[0].task_id');

      await badField({ ...body, mappings: 'all' }, 'mappings');
      await badField(mapping({ source_step: 1, target_step: 0 }), 'mappings[0].target_step');
      await badField(mapping({ target_step: 2 }), 'mappings[0].target_step');
      await badField(mapping({ source_step: -1 }), 'mappings[0].source_step');
      await badField(mapping({ map: ['x'] }), 'mappings[0].map');
      await badField(mapping({ map: { [randomUUID()]: splitOutput() } }), 'mappings[0].map');
      // Kinds: the input of the first step, a text parameter of the second.
      await badField(
        mapping({ map: { [splitTask.inputs[0].id]: splitOutput() } }),
        'mappings[0].map',
      );
      const modeId = (await stored(count.version_id)).groups[0]!.parameters[1]!.id;
      await badField(mapping({ map: { [modeId]: splitOutput() } }), 'mappings[0].map');
      // One input fed twice.
      await badField(
        {
          ...body,
          mappings: [body.mappings[0], body.mappings[0]],
        },
        'mappings[1].map',
      );
    });

    test('edited, launched: listing, launch form without the mapped input, required inputs', async () => {
      const made = await gw.ok('alice', 'POST', '/apps/pipelines', { json: pipeline('Launch me') });
      const original = await stored(made.version_id);

      // Saved over from the editor's view: names follow, step ids stay.
      const ui = await gw.ok('alice', 'GET', `/apps/pipelines/${made.id}/ui`);
      ui.name = 'Launch me, renamed';
      ui.steps[1].name = 'count words';
      const saved = await gw.ok('alice', 'PUT', `/apps/pipelines/${made.id}`, { json: ui });
      assert.equal(saved.name, 'Launch me, renamed');
      assert.equal(saved.version_id, made.version_id);
      assert.equal(saved.steps[1].name, 'count words');
      const resaved = await stored(made.version_id);
      assert.deepEqual(
        resaved.steps.map((step) => step.id),
        original.steps.map((step) => step.id),
        'the launch form keeps its ids',
      );
      await refused('alice', 'PUT', `/apps/pipelines/${made.id}`, 400, 'ERR_BAD_OR_MISSING_FIELD', {
        ...ui,
        mappings: [{ source_step: 1, target_step: 1, map: {} }],
      });
      // The app editor's body has no steps' apps nor mappings: a pipeline is saved here.
      await refused(
        'alice',
        'PUT',
        `/apps/de/${made.id}`,
        400,
        'ERR_ILLEGAL_ARGUMENT',
        component('x', []),
      );

      const [entry] = (await gw.ok('alice', 'GET', `/apps/de/${made.id}/listing`)).apps;
      assert.equal(entry.step_count, 2);
      assert.equal(entry.app_type, 'DE');
      assert.equal(entry.pipeline_eligibility.is_valid, false);
      const [splitEntry] = (await gw.ok('alice', 'GET', `/apps/de/${split.id}/listing`)).apps;
      assert.deepEqual(splitEntry.pipeline_eligibility, { is_valid: true, reason: '' });

      const [first, second] = resaved.steps;
      const launchId = (step: typeof first, parameter: string) => `${step!.id}_${parameter}`;
      const modeId = resaved.groups[1]!.parameters[1]!.id;
      const form = await gw.ok('alice', 'GET', `/apps/de/${made.id}`);
      const shown = form.groups.flatMap((group: any) => group.parameters.map((p: any) => p.id));
      assert.deepEqual(shown, [
        launchId(first, splitTask.inputs[0].id),
        launchId(first, splitOutput()),
        launchId(second, modeId),
      ]);
      assert.equal(
        shown.includes(launchId(second, countInput())),
        false,
        'the mapped input is not asked for',
      );

      const launch = (config: Record<string, unknown>) =>
        gw.call('alice', 'POST', '/analyses', {
          json: {
            system_id: 'de',
            app_id: made.id,
            name: 'pipeline run',
            output_dir: gw.home('alice'),
            config,
          },
        });
      const accepted = await launch({
        [launchId(first, splitTask.inputs[0].id)]: `${gw.home('alice')}/input.txt`,
        [launchId(second, modeId)]: 'words',
      });
      assert.equal(accepted.status, 200, accepted.text);
      assert.match(accepted.body.id, /^[0-9a-f-]{36}$/);
      const missing = await launch({ [launchId(second, modeId)]: 'words' });
      assert.equal(missing.status, 400, missing.text);
      assert.equal(missing.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      assert.deepEqual(
        missing.body.missing.map((item: any) => item.id),
        [launchId(first, splitTask.inputs[0].id)],
      );
    });

    test('versions: added, replaced, read and copied', async () => {
      const made = await gw.ok('alice', 'POST', '/apps/pipelines', { json: pipeline('Versioned') });
      const route = `/apps/pipelines/${made.id}`;
      const v1 = made.version_id;
      const second = await gw.ok('alice', 'POST', `${route}/versions`, {
        json: { ...pipeline('Versioned'), version: '2.0', mappings: [] },
      });
      const v2 = second.version_id;
      assert.notEqual(v2, v1);
      assert.equal(second.version, '2.0');
      assert.deepEqual(second.mappings, []);
      assert.deepEqual(
        second.versions.map((version: any) => version.version_id),
        [v2, v1],
      );
      assert.equal((await gw.ok('alice', 'GET', `/apps/de/${made.id}`)).version_id, v2);
      await refused(
        'alice',
        'POST',
        `${route}/versions`,
        400,
        'ERR_BAD_OR_MISSING_FIELD',
        pipeline('Versioned'),
      );
      await refused('alice', 'POST', `${route}/versions`, 409, 'ERR_EXISTS', {
        ...pipeline('Versioned'),
        version: '1.0',
      });

      // The older version: read, replaced in place; the current one is untouched.
      const older = await gw.ok('alice', 'GET', `${route}/versions/${v1}/ui`);
      assert.equal(older.version_id, v1);
      assert.equal(older.mappings.length, 1);
      older.steps[0].name = 'split, renamed';
      const replaced = await gw.ok('alice', 'PUT', `${route}/versions/${v1}`, { json: older });
      assert.equal(replaced.version_id, v1);
      assert.equal(replaced.steps[0].name, 'split, renamed');
      assert.equal((await gw.ok('alice', 'GET', `${route}/ui`)).steps[0].name, 'split');

      const copy = await gw.ok('alice', 'POST', `${route}/versions/${v1}/copy`, { json: {} });
      assert.equal(copy.id, made.id);
      assert.equal(copy.version, '1.0 (copy)');
      assert.equal(copy.steps[0].name, 'split, renamed');
      assert.deepEqual(copy.mappings, older.mappings);
      assert.equal((await gw.ok('alice', 'GET', `${route}/ui`)).version_id, copy.version_id);
      await refused('alice', 'GET', `${route}/versions/${randomUUID()}/ui`, 404, 'ERR_NOT_FOUND');
    });

    test('who may edit and copy; a public pipeline is no longer edited', async () => {
      const made = await gw.ok('alice', 'POST', '/apps/pipelines', { json: pipeline('Shared') });
      const route = `/apps/pipelines/${made.id}`;
      await refused('bob', 'GET', `${route}/ui`, 404, 'ERR_NOT_FOUND');
      await refused('bob', 'POST', `${route}/copy`, 404, 'ERR_NOT_FOUND');
      const share = (permission: string) =>
        gw.ok('alice', 'POST', '/apps/sharing', {
          json: {
            sharing: [
              { subject: user('bob'), apps: [{ system_id: 'de', app_id: made.id, permission }] },
            ],
          },
        });
      await share('read');
      await refused('bob', 'GET', `${route}/ui`, 403, 'ERR_NOT_OWNER');
      await refused('bob', 'PUT', route, 403, 'ERR_NOT_OWNER', made);
      const bobs = await gw.ok('bob', 'POST', `${route}/copy`, { json: {} });
      assert.notEqual(bobs.id, made.id);
      assert.equal(bobs.name, 'Copy of Shared');
      assert.equal(
        (await gw.ok('bob', 'GET', `/apps/de/${bobs.id}/listing`)).apps[0].permission,
        'own',
      );
      assert.deepEqual(bobs.mappings, made.mappings);
      assert.equal((await gw.ok('bob', 'GET', `/apps/pipelines/${bobs.id}/ui`)).id, bobs.id);
      await share('write');
      const edited = await gw.ok('bob', 'PUT', route, { json: { ...made, description: 'by bob' } });
      assert.equal(edited.description, 'by bob');

      await gw.ok(admin, 'POST', `/admin/apps/de/${made.id}/publish`, { json: {} });
      await refused('alice', 'GET', `${route}/ui`, 403, 'ERR_NOT_WRITEABLE');
      await refused('alice', 'PUT', route, 403, 'ERR_NOT_WRITEABLE', made);
      await refused('alice', 'POST', `${route}/versions`, 403, 'ERR_NOT_WRITEABLE', {
        ...made,
        version: '2.0',
      });
      const carols = await gw.ok('carol', 'POST', `${route}/copy`, { json: {} });
      assert.equal(carols.is_public, false);
      // The literal paths reach the pipeline routes, not `POST /apps/{system-id}` and its kin.
      const empty = await refused(
        'carol',
        'POST',
        '/apps/pipelines',
        400,
        'ERR_BAD_OR_MISSING_FIELD',
        {},
      );
      assert.equal(empty.field, 'name');
    });
  });
}
