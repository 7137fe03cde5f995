// The pipeline editor's view of one version (`GET /apps/pipelines/{app-id}[/versions/{version-id}]/ui`,
// and the answer of every pipeline save): DE's Pipeline shape, what the editor sends back (`name`,
// `description`, `steps` with `task_id`, `mappings` keyed by input), plus the steps' `tasks` with
// their inputs and outputs, so that the editor can show what maps onto what.
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { versionsOf, type AppRow, type VersionRow } from '../catalog/index.ts';
import type { AppDefinition } from '../shared/index.ts';
import { editorHeader, tasksView } from '../editor/index.ts';
import { editorMappings } from './pipeline-mappings.ts';

/** The step id of each app version a pipeline's steps run (what `/apps/{id}/tasks` lists). */
async function taskIds(db: Kysely<Database>, definition: AppDefinition) {
  const ids = definition.steps.flatMap((step) =>
    step.app_version_id ? [step.app_version_id] : [],
  );
  if (ids.length === 0) return new Map<string, string>();
  const rows = await db
    .selectFrom('app_versions')
    .select(['id', 'definition'])
    .where('id', 'in', ids)
    .execute();
  return new Map(
    rows.flatMap((row) => {
      const step = (JSON.parse(row.definition) as AppDefinition).steps[0];
      return step ? [[row.id, step.id] as const] : [];
    }),
  );
}

export async function pipelineView(db: Kysely<Database>, row: AppRow, version: VersionRow) {
  const definition = JSON.parse(version.definition) as AppDefinition;
  const [versions, tasks, stepTasks] = await Promise.all([
    versionsOf(db, row.id),
    tasksView(db, row, version),
    taskIds(db, definition),
  ]);
  // An app made by the app editor has no component apps: its steps stand for themselves.
  const steps = definition.steps.map((step) => ({
    id: step.id,
    name: step.name,
    description: step.description ?? '',
    system_id: row.system_id,
    app_type: 'DE',
    task_id: (step.app_version_id && stepTasks.get(step.app_version_id)) || step.app_id || step.id,
    app_id: step.app_id ?? row.id,
    app_version_id: step.app_version_id ?? version.id,
    tool_id: step.tool_id,
  }));
  return {
    ...editorHeader(row, version, versions),
    steps,
    mappings: editorMappings(definition.mappings),
    tasks: tasks.tasks.map((task, index) => ({
      ...task,
      id: steps[index]!.task_id,
      app_id: steps[index]!.app_id,
      app_version_id: steps[index]!.app_version_id,
    })),
  };
}
