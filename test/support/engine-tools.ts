// What the tests of tools on a job engine (docker-tools, slurm-tools) do alike through the gateway,
// as the web UI does it: the gateway started with the engine's settings, an app made on a tool and
// its launch keys read back, an app's first task, a pipeline of two tasks, a launch by alice, a
// result file downloaded, an interactive analysis reached through the VICE proxy, and the stored
// step of an analysis (what the engine recorded of it).
import assert from 'node:assert/strict';
import { eventually } from './fileio.ts';
import type { engines } from './postgres.ts';
import { admin, startMetadataGateway, type MetadataGateway } from './metadata-gateway.ts';

/**
 * The gateway on `engine` with the job engine's `env`, alice and the administrator seen once (the
 * platform shares only with users it has seen, and an administrator approves the tools).
 */
export async function startEngineGateway(
  engine: (typeof engines)[number],
  env: Record<string, string>,
): Promise<MetadataGateway> {
  const gw = (await startMetadataGateway({ engine, env }))!;
  for (const name of ['alice', admin])
    await gw.ok(name, 'GET', '/subjects?search=nobody-matches-this');
  return gw;
}

/** An app of alice's named `name` on tool `toolId`, its one group the `parameters` given. */
export const appOnTool = (
  gw: MetadataGateway,
  name: string,
  toolId: string,
  parameters: Record<string, unknown>[],
): Promise<{ id: string }> =>
  gw.ok('alice', 'POST', '/apps/de', {
    json: { name, tools: [{ id: toolId }], groups: [{ label: 'Parameters', parameters }] },
  });

/** The keys alice's launch of app `appId` sets its parameters by, by their label (else name). */
export async function launchKeys(gw: MetadataGateway, appId: string) {
  const view = await gw.ok('alice', 'GET', `/apps/de/${appId}`);
  return Object.fromEntries(
    view.groups
      .flatMap((group: any) => group.parameters)
      .map((parameter: any) => [parameter.label || parameter.name, parameter.id]),
  ) as Record<string, string>;
}

/** An app's first task, as the pipeline editor picks a step's. */
export const firstTask = async (gw: MetadataGateway, app: { id: string }) =>
  (await gw.ok('alice', 'GET', `/apps/de/${app.id}/tasks`)).tasks[0];

/** A step of a two-step pipeline: its name, its task, and the label of its output or input. */
interface PipedStep {
  step: string;
  task: any;
  label: string;
}

/**
 * alice's pipeline of two steps, the output labelled `from.label` of the first feeding the input
 * labelled `to.label` of the second; answers it and its launch keys.
 */
export async function twoStepPipeline(
  gw: MetadataGateway,
  about: { name: string; description: string },
  from: PipedStep,
  to: PipedStep,
) {
  const output = from.task.outputs.find((each: any) => each.label === from.label).id;
  const input = to.task.inputs.find((each: any) => each.label === to.label).id;
  const pipeline = await gw.ok('alice', 'POST', '/apps/pipelines', {
    json: {
      ...about,
      steps: [from, to].map(({ step, task }) => ({
        name: step,
        description: '',
        task_id: task.id,
        app_type: 'DE',
      })),
      mappings: [{ source_step: 0, target_step: 1, map: { [input]: output } }],
    },
  });
  return { pipeline, keys: await launchKeys(gw, pipeline.id) };
}

/** alice's launch of `app` into her home folder, named `name`; `extra` adds to the submission. */
export const launch = (
  gw: MetadataGateway,
  app: { id: string },
  name: string,
  config: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) =>
  gw.ok('alice', 'POST', '/analyses', {
    json: {
      system_id: 'de',
      app_id: app.id,
      name,
      output_dir: gw.home('alice'),
      config,
      ...extra,
    },
  });

/** The text of alice's file `file`, which must be there. */
export async function download(gw: MetadataGateway, file: string): Promise<string> {
  const answer = await gw.call(
    'alice',
    'GET',
    `/secured/fileio/download?path=${encodeURIComponent(file)}`,
  );
  assert.equal(answer.status, 200, `${file}: ${answer.text}`);
  return answer.text;
}

/**
 * Interactive analysis `id` reached as users reach it, through the platform's proxy at its VICE
 * host: the host, and the text alice gets at `path` there once it answers 200 (within `timeoutMs`).
 */
export async function throughViceProxy(
  gw: MetadataGateway,
  id: string,
  path: string,
  timeoutMs: number,
  what: string,
) {
  const { externalID: host } = await gw.ok('alice', 'GET', `/vice/analyses/${id}/external-id`);
  const text = await eventually(
    async () => {
      const response = await gw.call('alice', 'GET', `/vice/${host}${path}`);
      return response.status === 200 ? response.text : undefined;
    },
    timeoutMs,
    what,
  );
  return { host: host as string, text };
}

/** The stored (first) step of analysis `id`: its engine handle and CPU seconds among the rest. */
export const storedStep = (gw: MetadataGateway, id: string) =>
  gw.running.gateway.store.db
    .selectFrom('analysis_steps')
    .selectAll()
    .where('analysis_id', '=', id)
    .executeTakeFirstOrThrow();
