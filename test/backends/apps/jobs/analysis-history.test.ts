// GET /analyses/{id}/history in the shape the web UI reads (routes.md §11, clients.md §5.4):
// `steps[].{step_number, external_id, startdate, enddate, status, step_type, updates[]}` with
// times as strings of epoch milliseconds, for a real Word count run on the embedded executor, on
// SQLite and PostgreSQL; the step list (/steps) that goes with it; the gateway's documented answer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../../src/backends/apps/catalog/built-in.ts';
import { eventually } from '../../../support/fileio.ts';
import { requiredInCi } from '../../../support/gateway.ts';
import { startMetadataGateway, type MetadataGateway } from '../../../support/metadata-gateway.ts';

const wordCount = builtInApps.find((app) => app.name === 'Word count')!;
const inputKey = () => {
  const parameter = wordCount.definition.groups
    .flatMap((group) => group.parameters)
    .find((candidate) => candidate.name === 'input')!;
  return `${wordCount.definition.steps[0]!.id}_${parameter.id}`;
};
const msString = /^[1-9]\d*$/;

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`analysis history (${engine})`, () => {
    let gw: MetadataGateway | undefined;
    before(async () => {
      gw = await startMetadataGateway({ engine });
    });
    after(() => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    test('a Word count run: one step, Completed, with its dates and updates Submitted → Running → Completed', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const g = gw!;
      await g.upload('alice', g.home('alice'), 'words.txt', 'one two three\n');
      const launched = await g.ok('alice', 'POST', '/analyses', {
        json: {
          system_id: 'de',
          app_id: wordCount.id,
          name: 'count',
          output_dir: g.home('alice'),
          config: { [inputKey()]: `${g.home('alice')}/words.txt` },
        },
      });
      const done = await eventually(
        async () => {
          const found = await g.ok('alice', 'GET', `/analyses/${launched.id}/history`);
          return found.steps[0]?.status === 'Completed' ? found : undefined;
        },
        10_000,
        'the analysis to complete',
      );

      assert.deepEqual(Object.keys(done).sort(), ['analysis_id', 'steps', 'timestamp', 'total']);
      assert.equal(done.analysis_id, launched.id);
      assert.equal(done.total, 1);
      assert.match(done.timestamp, msString);
      assert.equal(done.steps.length, 1);
      const [step] = done.steps;
      // The step's own id on the executor: not the analysis's.
      assert.match(step.external_id, /^[0-9a-f-]{36}$/);
      assert.notEqual(step.external_id, launched.id);
      assert.deepEqual(
        { ...step, startdate: 'start', enddate: 'end', updates: [] },
        {
          step_number: 1,
          external_id: step.external_id,
          startdate: 'start',
          enddate: 'end',
          status: 'Completed',
          app_step_number: 1,
          step_type: 'DE',
          updates: [],
        },
      );
      assert.match(step.startdate, msString);
      assert.match(step.enddate, msString);
      assert.ok(Number(step.enddate) >= Number(step.startdate), 'ends after it starts');

      assert.deepEqual(
        step.updates.map((update: any) => update.status),
        ['Submitted', 'Running', 'Completed'],
      );
      for (const update of step.updates) {
        assert.deepEqual(Object.keys(update).sort(), ['message', 'status', 'timestamp']);
        assert.match(update.timestamp, msString);
        assert.equal(typeof update.message, 'string');
      }
      const times = step.updates.map((update: any) => Number(update.timestamp));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => a - b),
        'oldest first',
      );
      assert.equal(times[1], Number(step.startdate), 'a step starts when it starts running');
      assert.equal(times.at(-1), Number(step.enddate), 'completed when it ended');

      // The step list is the history without the updates.
      const steps = await g.ok('alice', 'GET', `/analyses/${launched.id}/steps`);
      const { updates: _updates, ...stepAlone } = step;
      assert.deepEqual({ ...steps, timestamp: done.timestamp }, { ...done, steps: [stepAlone] });

      // The listing agrees with the history: the analysis starts when submitted, its step when it
      // runs; the analysis ends when its last step has.
      const listed = (
        await g.ok(
          'alice',
          'GET',
          `/analyses?filter=${encodeURIComponent(JSON.stringify([{ field: 'id', value: launched.id }]))}`,
        )
      ).analyses[0];
      assert.equal(Number(listed.startdate), times[0]);
      assert.ok(Number(listed.enddate) >= Number(step.enddate));
    });

    test('a running analysis has no end date yet; another user gets 404', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const g = gw!;
      // A job recorded as running (nothing runs it: the runner only picks up what it submits).
      const id = crypto.randomUUID();
      const started = Date.now() - 5_000;
      const db = g.running.gateway.store.db;
      await db
        .insertInto('analyses')
        .values({
          id,
          name: 'long',
          username: 'bob',
          app_id: wordCount.id,
          app_version_id: wordCount.versionId,
          system_id: 'de',
          app_name: wordCount.name,
          result_folder: g.home('bob'),
          status: 'Running',
          start_date: started,
          submission: '{}',
        })
        .execute();
      // Recorded in the same millisecond, in the table's random-id order: the lifecycle decides.
      await db
        .insertInto('analysis_status_updates')
        .values([
          {
            id: 'ffffffff-0000-0000-0000-000000000000',
            analysis_id: id,
            status: 'Submitted',
            message: 'submitted',
            sent_on: started,
          },
          {
            id: '00000000-0000-0000-0000-000000000000',
            analysis_id: id,
            status: 'Running',
            message: 'running',
            sent_on: started,
          },
        ])
        .execute();
      const history = await g.ok('bob', 'GET', `/analyses/${id}/history`);
      assert.equal(history.steps[0].status, 'Running');
      assert.equal(history.steps[0].startdate, String(started));
      assert.equal(history.steps[0].enddate, '0', 'not ended');
      assert.deepEqual(
        history.steps[0].updates.map((update: any) => [update.status, update.timestamp]),
        [
          ['Submitted', String(started)],
          ['Running', String(started)],
        ],
      );
      const stranger = await g.call('carol', 'GET', `/analyses/${id}/history`);
      assert.equal(stranger.status, 404);
      assert.equal(stranger.body.error_code, 'ERR_NOT_FOUND');
    });

    test('the OpenAPI document gives the route this shape', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const document = await gw!.ok(null, 'GET', '/openapi.json');
      const schema =
        document.paths['/analyses/{analysisId}/history'].get.responses['200'].content[
          'application/json'
        ].schema;
      assert.deepEqual(Object.keys(schema.properties).sort(), [
        'analysis_id',
        'steps',
        'timestamp',
        'total',
      ]);
      assert.deepEqual(
        Object.keys(schema.properties.steps.items.properties.updates.items.properties).sort(),
        ['message', 'status', 'timestamp'],
      );
    });
  });
}
