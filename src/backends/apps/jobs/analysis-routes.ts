// The analyses routes of the apps service (backends.md §5.3): launch, list (JSON `filter`),
// stats, rename, delete, stop, steps, history, parameters, relaunch info and relaunch. Each user sees their
// own and those shared with them (docs/api/sharing.md): `read` to look, `write` to rename and stop;
// only the owner deletes.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { normalizeQuery, badQueryParam, countParam } from '../../../common/query-params.ts';
import { paged } from '../../../store/paging.ts';
import type { Database } from '../../../store/schema.ts';
import { asBoolean } from '../../../store/sqlite-booleans.ts';
import { jsonNestsDeeperThan } from '../../../common/json-depth.ts';
import {
  chosenGenome,
  launchView,
  referenceGenomeParameterTypes,
  visibleApp,
} from '../catalog/index.ts';
import { groupsWithSaved } from './saved-form.ts';
import {
  levelOf,
  sharedIds,
  sharedLevels,
  signedInUser,
  type AppDefinition,
} from '../shared/index.ts';
import { activeStatuses, type AnalysisRow, type JobRunner } from './job-runner.ts';
import { checkSubmission } from './job-submission.ts';
import { stepsOf } from './analysis-steps.ts';
import { analysisAccess } from './analysis-access.ts';
import { gatewayError } from '../../../common/errors.ts';
import { atLeast, type Level } from '../../permissions/index.ts';
import { basePaths } from '../../../common/base-paths.ts';

/** Analyses give times as strings of milliseconds, "0" for none (backends.md §1.3). */
const msString = (value: number | null) => String(value ?? 0);

function analysisJson(
  row: AnalysisRow,
  uidDomain: string,
  level: Level,
  interactiveUrls: string[] = [],
) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    app_id: row.app_id,
    app_version_id: row.app_version_id,
    system_id: row.system_id,
    app_name: row.app_name,
    app_description: row.app_description,
    startdate: msString(row.start_date),
    enddate: msString(row.end_date),
    notify: asBoolean(row.notify),
    resultfolderid: row.result_folder,
    status: row.status,
    username: `${row.username}@${uidDomain}`,
    parent_id: row.parent_id,
    batch: false,
    app_disabled: false,
    can_share: level === 'own',
    // The caller's level on it (`read`, `write`, `own`): what the gateway's VICE checks read.
    permission: level,
    // Where its running interactive sessions are reached, relative to the gateway (docs/api/vice.md).
    interactive_urls: interactiveUrls,
  };
}

/**
 * Orders updates recorded in the same millisecond (a job usually starts running in the one it was
 * submitted in): their ids are random, so only the lifecycle says which came first.
 */
const lifecycleRank = (status: string) =>
  status === 'Submitted' ? 0 : status === 'Running' ? 1 : 2;

const sortColumns = {
  startdate: 'start_date',
  enddate: 'end_date',
  name: 'name',
  status: 'status',
  app_name: 'app_name',
} as const;

/** `filter` = `[{field, value}]`: repeated fields are alternatives, different fields all apply. */
function filters(raw: string | undefined): Map<string, string[]> {
  const byField = new Map<string, string[]>();
  if (raw === undefined || raw === '') return byField;
  // A value is turned to text below, and String() of nested arrays recurses: keep them shallow.
  if (jsonNestsDeeperThan(raw, 3))
    throw badQueryParam('filter', 'filter must be a JSON list of {field, value}');
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw badQueryParam('filter', 'filter must be a JSON list of {field, value}');
  }
  if (
    !Array.isArray(parsed) ||
    parsed.some(
      (item) => typeof item !== 'object' || item === null || typeof item.field !== 'string',
    )
  ) {
    throw badQueryParam('filter', 'filter must be a JSON list of {field, value}');
  }
  for (const { field, value } of parsed as { field: string; value: unknown }[]) {
    byField.set(field, [
      ...(byField.get(field) ?? []),
      value === null || value === undefined ? '' : String(value),
    ]);
  }
  return byField;
}

const filterFields = [
  'name',
  'app_name',
  'id',
  'status',
  'parent_id',
  'ownership',
  'type',
  'app_id',
];

export const analysisRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  runner: JobRunner;
  uidDomain: string;
  /** The data store's zone: a relaunch of someone else's analysis writes into the caller's home. */
  zone: string;
}> = async (app, { db, runner, uidDomain, zone }) => {
  const signedIn = (query: unknown) => signedInUser(query, 'use analyses');
  /** The analysis when `user` holds `needed` on it; 404 when they hold nothing, 403 when too little. */
  const reachable = async (user: string, id: string, needed: Level = 'read') => {
    const found = await analysisAccess(db, user, id);
    if (!found) throw gatewayError('ERR_NOT_FOUND', `no analysis ${id}`, { id });
    const { row, level } = found;
    if (!atLeast(level, needed))
      throw gatewayError('ERR_FORBIDDEN', `${user} may not change analysis ${row.id}`, {
        id: row.id,
        permission: level,
      });
    return row;
  };

  const launched = (row: AnalysisRow) => ({
    id: row.id,
    name: row.name,
    status: row.status,
    'start-date': msString(row.start_date),
  });

  app.post('/analyses', async (request) => {
    const user = signedIn(request.query);
    return launched(await runner.submit(user, await checkSubmission(db, user, request.body)));
  });

  /**
   * `{analyses: [id]}`: each analysis the caller may read launched again from its saved submission,
   * as a new analysis of the caller. Every id is checked, every submission against the app as it
   * is now, and the caller's limit of running jobs against them all, before anything runs. Someone else's analysis writes its results into the caller's
   * home (a subfolder), never the owner's output folder.
   */
  app.post('/analyses/relauncher', async (request) => {
    const ids = (request.body as { analyses?: unknown } | null)?.analyses;
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string') || ids.length > 1000) {
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        '"analyses" must be a list of at most 1000 analysis ids',
        { field: 'analyses' },
      );
    }
    const user = signedIn(request.query);
    const rows: AnalysisRow[] = [];
    for (const id of new Set((ids as string[]).map((id) => id.toLowerCase())))
      rows.push(await reachable(user, id));
    const submissions = [];
    for (const row of rows) {
      const saved = JSON.parse(row.submission) as Record<string, unknown>;
      const submission =
        row.username === user
          ? saved
          : {
              ...saved,
              output_dir: basePaths(zone, user).user_home_path,
              create_output_subdir: true,
            };
      submissions.push(await checkSubmission(db, user, submission));
    }
    await runner.makeRoom(user, submissions.length);
    const answer = [];
    for (const submission of submissions)
      answer.push(launched(await runner.submit(user, submission)));
    return { analyses: answer };
  });

  const selection = (user: string, query: Record<string, string>) => {
    const byField = filters(query.filter);
    const unknown = [...byField.keys()].filter((field) => !filterFields.includes(field));
    if (unknown.length > 0)
      throw badQueryParam(
        'filter',
        `unknown filter fields: ${unknown.join(', ')} (known: ${filterFields.join(', ')})`,
      );
    let rows = db
      .selectFrom('analyses')
      .where((eb) =>
        eb.or([eb('username', '=', user), eb('id', 'in', sharedIds(db, 'analysis', user))]),
      );
    if (query['include-deleted'] !== 'true') rows = rows.where('deleted', '=', false);
    for (const [field, values] of byField) {
      if (field === 'ownership') {
        // `mine`, `theirs` (shared with the caller) or `all`; alternatives add up.
        const mine = values.includes('mine');
        const theirs = values.includes('theirs');
        if (!values.includes('all') && mine !== theirs)
          rows = rows.where('username', mine ? '=' : '!=', user);
        continue;
      }
      if (field === 'type') continue;
      if (field === 'name' || field === 'app_name') {
        rows = rows.where((eb) =>
          eb.or(
            values.map((value) =>
              eb(
                eb.fn('lower', [field]),
                'like',
                `%${value.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`,
              ),
            ),
          ),
        );
      } else if (field === 'parent_id') {
        rows = values.every((value) => value === '')
          ? rows.where('parent_id', 'is', null)
          : rows.where('parent_id', 'in', values);
      } else {
        rows = rows.where(
          field as 'id' | 'status' | 'app_id',
          'in',
          field === 'id' ? values.map((value) => value.toLowerCase()) : values,
        );
      }
    }
    return rows;
  };

  const statusCount = async (rows: ReturnType<typeof selection>) =>
    (
      await rows
        .select((eb) => ['status', eb.fn.countAll<number>().as('count')])
        .groupBy('status')
        .orderBy('status')
        .execute()
    ).map((row) => ({ status: row.status, count: Number(row.count) }));

  app.get('/analyses', async (request) => {
    const user = signedIn(request.query);
    const query = normalizeQuery(request.query) as Record<string, string>;
    const sortField = (query['sort-field'] ?? 'startdate').toLowerCase();
    const sortDir = (query['sort-dir'] ?? 'desc').toLowerCase();
    if (!(sortField in sortColumns))
      throw badQueryParam(
        'sort-field',
        `sort-field must be one of ${Object.keys(sortColumns).join(', ')}`,
      );
    if (sortDir !== 'asc' && sortDir !== 'desc')
      throw badQueryParam('sort-dir', 'sort-dir must be ASC or DESC');
    const limit = countParam(query, 'limit', 0);
    const offset = countParam(query, 'offset', 0);
    const rows = selection(user, query);
    const page = paged(
      rows
        .selectAll()
        .orderBy(sortColumns[sortField as keyof typeof sortColumns], sortDir)
        .orderBy('id', sortDir),
      limit,
      offset,
    );
    const [found, total, statuses] = await Promise.all([
      page.execute(),
      rows.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirst(),
      statusCount(rows),
    ]);
    const granted = await sharedLevels(
      db,
      'analysis',
      found.filter((row) => row.username !== user).map((row) => row.id),
      user,
    );
    const sessions =
      found.length === 0
        ? []
        : await db
            .selectFrom('analysis_steps')
            .select(['analysis_id', 'external_id'])
            .where(
              'analysis_id',
              'in',
              found.map((row) => row.id),
            )
            .where('step_type', '=', 'Interactive')
            .where('status', '=', 'Running')
            .execute();
    const urls = (id: string) =>
      sessions
        .filter((session) => session.analysis_id === id)
        .map((session) => `/vice/${session.external_id}/`);
    return {
      analyses: found.map((row) =>
        analysisJson(
          row,
          uidDomain,
          levelOf(row.username, user, granted.get(row.id)) ?? 'read',
          urls(row.id),
        ),
      ),
      timestamp: String(Date.now()),
      total: Number(total?.count ?? 0),
      'status-count': statuses,
    };
  });

  app.get('/analyses/stats', async (request) => {
    const user = signedIn(request.query);
    return {
      'status-count': await statusCount(
        selection(user, normalizeQuery(request.query) as Record<string, string>),
      ),
    };
  });

  type IdParams = { Params: { id: string } };

  app.patch<IdParams>('/analyses/:id', async (request) => {
    const user = signedIn(request.query);
    const row = await reachable(user, request.params.id, 'write');
    const body = (request.body ?? {}) as { name?: unknown; description?: unknown };
    const changes: { name?: string; description?: string } = {};
    if (body.name !== undefined) {
      if (typeof body.name !== 'string' || body.name.trim() === '' || body.name.length > 255)
        throw gatewayError(
          'ERR_BAD_OR_MISSING_FIELD',
          '"name" must be a non-empty string of at most 255 characters',
          { field: 'name' },
        );
      changes.name = body.name.trim();
    }
    if (body.description !== undefined) {
      if (typeof body.description !== 'string')
        throw gatewayError('ERR_BAD_OR_MISSING_FIELD', '"description" must be a string', {
          field: 'description',
        });
      changes.description = body.description;
    }
    if (Object.keys(changes).length > 0)
      await db.updateTable('analyses').set(changes).where('id', '=', row.id).execute();
    return { id: row.id, ...changes };
  });

  const remove = async (user: string, ids: string[]) => {
    const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
    const rows =
      wanted.length === 0
        ? []
        : await db
            .selectFrom('analyses')
            .selectAll()
            .where('id', 'in', wanted)
            .where('username', '=', user)
            .where('deleted', '=', false)
            .execute();
    const unknown = wanted.filter((id) => !rows.some((row) => row.id === id));
    if (unknown.length > 0)
      throw gatewayError('ERR_NOT_FOUND', `no analysis ${unknown.join(', ')}`, {
        id: unknown[0],
        ids: unknown,
      });
    const running = rows.filter((row) => activeStatuses.includes(row.status));
    if (running.length > 0)
      throw gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        `stop these analyses before deleting them: ${running.map((row) => row.id).join(', ')}`,
        { analyses: running.map((row) => row.id) },
      );
    if (rows.length > 0)
      await db
        .updateTable('analyses')
        .set({ deleted: true })
        .where(
          'id',
          'in',
          rows.map((row) => row.id),
        )
        .execute();
    return rows.map((row) => row.id);
  };

  app.delete<IdParams>('/analyses/:id', async (request) => {
    const [id] = await remove(signedIn(request.query), [request.params.id]);
    return { id };
  });

  app.post('/analyses/shredder', async (request) => {
    const ids = (request.body as { analyses?: unknown } | null)?.analyses;
    if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string') || ids.length > 1000) {
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        '"analyses" must be a list of at most 1000 analysis ids',
        { field: 'analyses' },
      );
    }
    return { analyses: await remove(signedIn(request.query), ids as string[]) };
  });

  app.post<IdParams>('/analyses/:id/stop', async (request) => {
    const user = signedIn(request.query);
    const row = await reachable(user, request.params.id, 'write');
    const status = (request.query as { job_status?: string }).job_status ?? 'Canceled';
    if (!['Canceled', 'Completed', 'Failed'].includes(status))
      throw badQueryParam('job_status', 'job_status must be Canceled, Completed or Failed');
    if (!activeStatuses.includes(row.status))
      throw gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        `analysis ${row.id} has already ended (${row.status})`,
        { id: row.id, status: row.status },
      );
    const stopped = await runner.stop(row, status);
    return { id: stopped.id, status: stopped.status };
  });

  // Each step as recorded (analysis-steps.ts); an analysis recorded before steps were, or one a
  // third-party system runs, shows as its one step with the analysis's own updates.
  const stepType = (row: AnalysisRow) => (row.system_id === 'de' ? 'DE' : row.system_id);
  const stepList = (row: AnalysisRow, steps: object[]) => ({
    analysis_id: row.id,
    steps,
    timestamp: String(Date.now()),
    total: steps.length,
  });
  const stepsWithUpdates = async (row: AnalysisRow, withUpdates: boolean) => {
    const recorded = await stepsOf(db, row.id);
    const steps =
      recorded.length > 0
        ? recorded.map((step) => ({
            step_number: step.step_number,
            external_id: step.external_id,
            startdate: msString(step.start_date),
            enddate: msString(step.end_date),
            status: step.status,
            app_step_number: step.step_number,
            step_type: step.step_type,
          }))
        : [
            {
              step_number: 1,
              external_id: row.id,
              startdate: msString(row.start_date),
              enddate: msString(row.end_date),
              status: row.status,
              app_step_number: 1,
              step_type: stepType(row),
            },
          ];
    if (!withUpdates) return steps;
    const updates = (
      await db
        .selectFrom('analysis_status_updates')
        .select(['status', 'message', 'sent_on', 'step_number'])
        .where('analysis_id', '=', row.id)
        .execute()
    ).sort((a, b) => a.sent_on - b.sent_on || lifecycleRank(a.status) - lifecycleRank(b.status));
    return steps.map((step) => ({
      ...step,
      updates: updates
        .filter((update) =>
          recorded.length > 0
            ? update.step_number === step.step_number
            : update.step_number === null,
        )
        .map((update) => ({
          status: update.status,
          message: update.message,
          timestamp: msString(update.sent_on),
        })),
    }));
  };

  app.get<IdParams>('/analyses/:id/steps', async (request) => {
    const row = await reachable(signedIn(request.query), request.params.id);
    return stepList(row, await stepsWithUpdates(row, false));
  });

  app.get<IdParams>('/analyses/:id/history', async (request) => {
    const row = await reachable(signedIn(request.query), request.params.id);
    return stepList(row, await stepsWithUpdates(row, true));
  });

  /** The saved submission against the definition it launched: one entry per parameter. */
  const parametersOf = async (row: AnalysisRow) => {
    const version = await db
      .selectFrom('app_versions')
      .select('definition')
      .where('id', '=', row.app_version_id)
      .executeTakeFirst();
    const definition = JSON.parse(
      version?.definition ?? '{"steps":[],"groups":[]}',
    ) as AppDefinition;
    const config = ((JSON.parse(row.submission) as { config?: Record<string, unknown> }).config ??
      {}) as Record<string, unknown>;
    const entries = definition.groups.flatMap((group) => {
      const step = definition.steps[(group.step_number ?? 1) - 1];
      return group.parameters.map(async (parameter) => {
        const fullId = `${step?.id ?? 'step'}_${parameter.id}`;
        const given = config[fullId];
        const raw =
          given === undefined || given === null || given === '' ? parameter.defaultValue : given;
        // A reference genome is shown as the genome the job got: {id, name, path}.
        const genome = referenceGenomeParameterTypes.includes(parameter.type)
          ? await chosenGenome(db, raw, true)
          : undefined;
        const value = genome ? { id: genome.id, name: genome.name, path: genome.path } : raw;
        return {
          full_param_id: fullId,
          param_id: parameter.id,
          param_name: parameter.label ?? parameter.name ?? '',
          param_type: parameter.type,
          param_value: { value: value ?? null },
          is_default_value: given === undefined || given === null || given === '',
          is_visible: parameter.isVisible ?? true,
        };
      });
    });
    return Promise.all(entries);
  };

  app.get<IdParams>('/analyses/:id/parameters', async (request) => {
    const row = await reachable(signedIn(request.query), request.params.id);
    return { app_id: row.app_id, system_id: row.system_id, parameters: await parametersOf(row) };
  });

  app.get<IdParams>('/analyses/:id/relaunch-info', async (request) => {
    const user = signedIn(request.query);
    const row = await reachable(user, request.params.id);
    const view = await launchView(
      db,
      user,
      await visibleApp(db, user, row.system_id, row.app_id),
      row.app_version_id,
    );
    const config = ((JSON.parse(row.submission) as { config?: Record<string, unknown> }).config ??
      {}) as Record<string, unknown>;
    return { ...view, groups: await groupsWithSaved(db, view.groups, config) };
  });
};
