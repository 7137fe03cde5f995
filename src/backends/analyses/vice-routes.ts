// VICE on the embedded platform (routes.md §19; docs/api/vice.md), served here while
// INTERACTIVE_APPS_URL is unset, as the instant launches are: an interactive tool's step runs on
// the apps service's executor, listening on a loopback port; its row (migration 029) holds the port
// and the deadline, and takes the requests to end it, which the job runner carries out. A session's
// host (its name in `/vice/{host}/...`) is its step's external id. Who may do what is the
// analysis's: `read` to reach and describe it, `write` to extend its time limit; administrators end
// any session.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { requireUserParam } from '../../common/query-params.ts';
import { gatewayError } from '../../common/errors.ts';
import { atLeast, type Level } from '../permissions/index.ts';
import { analysisAccess } from '../apps/index.ts';
import { acceptsConnections } from '../executor/index.ts';

/** What one extension adds when a session has no length recorded: three days, as upstream. */
const defaultExtensionMs = 72 * 3600 * 1000;

/** Epoch seconds as a string, as upstream answers time limits. */
const seconds = (ms: number | null) => String(Math.floor(Number(ms ?? 0) / 1000));

type HostParams = { Params: { host: string } };
type IdParams = { Params: { id: string } };

export const viceRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  now: () => number;
  /** EXECUTOR_WORK_DIR: where a running step's logs are (`steps/<analysis>-<n>/logs`). */
  executorWorkDir: string;
}> = async (app, { db, now, executorWorkDir }) => {
  /**
   * The interactive step of a session by its host, for `user` at `needed` (for an administrator
   * when `user` is undefined); 404 otherwise.
   */
  const session = async (user: string | undefined, host: string, needed: Level = 'read') => {
    const step = await db
      .selectFrom('analysis_steps')
      .selectAll()
      .where('external_id', '=', host.toLowerCase())
      .where('step_type', '=', 'Interactive')
      .executeTakeFirst();
    const analysis =
      step &&
      (user === undefined
        ? await db
            .selectFrom('analyses')
            .selectAll()
            .where('id', '=', step.analysis_id)
            .executeTakeFirst()
        : await analysisAccess(db, user, step.analysis_id).then((access) =>
            access && atLeast(access.level, needed) ? access.row : undefined,
          ));
    if (!step || !analysis)
      throw gatewayError('ERR_NOT_FOUND', `no interactive session ${host}`, { host });
    return { step, analysis };
  };

  /** The interactive step of an analysis, for `user` at `needed`. */
  const stepOfAnalysis = async (user: string | undefined, id: string, needed: Level) => {
    const access = user === undefined ? undefined : await analysisAccess(db, user, id);
    const step = await db
      .selectFrom('analysis_steps')
      .selectAll()
      .where('analysis_id', '=', id.toLowerCase())
      .where('step_type', '=', 'Interactive')
      .executeTakeFirst();
    if (user !== undefined && (!access || !step))
      throw gatewayError('ERR_NOT_FOUND', `no interactive analysis ${id}`, { id });
    if (!step) throw gatewayError('ERR_NOT_FOUND', `no interactive analysis ${id}`, { id });
    if (access && !atLeast(access.level, needed))
      throw gatewayError('ERR_FORBIDDEN', `${user} may not change analysis ${id}`, { id });
    return step;
  };

  const description = (
    step: Awaited<ReturnType<typeof session>>['step'],
    analysis: Awaited<ReturnType<typeof session>>['analysis'],
  ) => ({
    analysisID: analysis.id,
    externalID: step.external_id,
    host: step.external_id,
    name: analysis.name,
    // The web UI's administrators' VICE page names the analysis by this one.
    analysisName: analysis.name,
    appID: analysis.app_id,
    appName: analysis.app_name,
    username: analysis.username,
    status: step.status,
    creationTimestamp: seconds(step.start_date ?? analysis.start_date),
    timeLimit: seconds(step.time_limit),
  });

  /** Running sessions (of `user`, or everyone's), described. */
  const listing = async (user: string | undefined) => {
    let query = db
      .selectFrom('analysis_steps')
      .innerJoin('analyses', 'analyses.id', 'analysis_steps.analysis_id')
      .select('analysis_steps.external_id')
      .where('analysis_steps.step_type', '=', 'Interactive')
      .where('analysis_steps.status', '=', 'Running');
    if (user !== undefined) query = query.where('analyses.username', '=', user);
    const deployments = [];
    for (const row of await query.execute()) {
      const found = await session(user, row.external_id);
      deployments.push(description(found.step, found.analysis));
    }
    return { deployments, pods: [], configMaps: [], services: [], ingresses: [] };
  };
  app.get('/vice/listing', async (request) => listing(requireUserParam(request.query)));
  app.get('/vice/admin/listing', async () => listing(undefined));

  // Which analysis a session is (the gateway checks that the caller may read it before answering).
  app.get('/vice/async-data', async (request) => {
    const host = (request.query as { 'external-id'?: unknown })['external-id'];
    if (typeof host !== 'string' || host === '')
      throw gatewayError('ERR_MISSING_QUERY_PARAMETER', 'missing query parameter "external-id"', {
        field: 'external-id',
      });
    const { step } = await session(undefined, host);
    return { analysisID: step.analysis_id, subdomain: step.external_id, ipAddr: '127.0.0.1' };
  });

  // The gateway's proxy asks where a session listens (a path of this embedded service only).
  app.get<HostParams>('/vice/:host/target', async (request) => {
    const { step } = await session(requireUserParam(request.query), request.params.host);
    if (step.status !== 'Running' || step.port === null)
      throw gatewayError(
        'ERR_NOT_FOUND',
        `interactive session ${step.external_id} is not running`,
        {
          host: step.external_id,
        },
      );
    return { url: `http://127.0.0.1:${step.port}` };
  });

  const ready = async (user: string | undefined, host: string) => {
    const { step } = await session(user, host);
    return {
      ready:
        step.status === 'Running' && step.port !== null && (await acceptsConnections(step.port)),
    };
  };
  app.get<HostParams>('/vice/:host/url-ready', async (request) =>
    ready(requireUserParam(request.query), request.params.host),
  );
  app.get<HostParams>('/vice/admin/:host/url-ready', async (request) =>
    ready(undefined, request.params.host),
  );
  app.get<HostParams>('/vice/:host/description', async (request) => {
    const { step, analysis } = await session(requireUserParam(request.query), request.params.host);
    return description(step, analysis);
  });
  app.get<HostParams>('/vice/admin/:host/description', async (request) => {
    const { step, analysis } = await session(undefined, request.params.host);
    return description(step, analysis);
  });

  // Users' time limits: GET reads, POST moves the deadline on by the session's length (its tool's
  // time limit, three days by default) from now or from itself, whichever is later (the executor
  // still ends it at TOOL_WALL_CLOCK_SECONDS). Administrators' are the same without the check.
  const timeLimit = async (user: string | undefined, id: string) => {
    const step = await stepOfAnalysis(user, id, 'read');
    return { time_limit: seconds(step.time_limit) };
  };
  const extend = async (user: string | undefined, id: string) => {
    const step = await stepOfAnalysis(user, id, 'write');
    if (step.status !== 'Running' || step.time_limit === null)
      throw gatewayError('ERR_ILLEGAL_ARGUMENT', `analysis ${id} is not running`, { id });
    const extension =
      step.session_seconds !== null ? step.session_seconds * 1000 : defaultExtensionMs;
    const deadline = Math.max(now(), Number(step.time_limit)) + extension;
    await db
      .updateTable('analysis_steps')
      .set({ time_limit: deadline })
      .where('external_id', '=', step.external_id)
      .execute();
    return { time_limit: seconds(deadline) };
  };
  app.get<IdParams>('/vice/:id/time-limit', async (request) =>
    timeLimit(requireUserParam(request.query), request.params.id),
  );
  app.post<IdParams>('/vice/:id/time-limit', async (request) =>
    extend(requireUserParam(request.query), request.params.id),
  );
  app.get<IdParams>('/vice/admin/analyses/:id/time-limit', async (request) =>
    timeLimit(undefined, request.params.id),
  );
  app.post<IdParams>('/vice/admin/analyses/:id/time-limit', async (request) =>
    extend(undefined, request.params.id),
  );

  // Requests to a running session, carried out by the job runner within a second: exit and
  // save-and-exit end it (with its outputs saved for the latter); save-output-files and
  // download-input-files act while it goes on, and never replace a pending ending.
  type SessionRequest = 'exit' | 'save-and-exit' | 'save-output-files' | 'download-input-files';
  const requestOf = async (id: string, request: SessionRequest) => {
    const step = await stepOfAnalysis(undefined, id, 'write');
    if (step.status !== 'Running')
      throw gatewayError('ERR_ILLEGAL_ARGUMENT', `analysis ${id} is not running`, { id });
    const ending = request === 'exit' || request === 'save-and-exit';
    let update = db
      .updateTable('analysis_steps')
      .set({ exit_request: request })
      .where('external_id', '=', step.external_id);
    if (!ending)
      update = update.where((eb) =>
        eb.or([
          eb('exit_request', 'is', null),
          eb('exit_request', 'in', ['save-output-files', 'download-input-files']),
        ]),
      );
    const result = await update.executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0)
      throw gatewayError('ERR_ILLEGAL_ARGUMENT', `analysis ${id} is already being ended`, { id });
    return { analysisID: step.analysis_id, request };
  };
  for (const request of [
    'exit',
    'save-and-exit',
    'save-output-files',
    'download-input-files',
  ] as const)
    app.post<IdParams>(`/vice/admin/analyses/:id/${request}`, async (call) =>
      requestOf(call.params.id, request),
    );
  app.get<IdParams>('/vice/admin/analyses/:id/external-id', async (request) => {
    const step = await stepOfAnalysis(undefined, request.params.id, 'read');
    return { external_id: step.external_id };
  });

  // A running session's output so far: `container` `stderr` for its stderr, else its stdout;
  // `tail-lines` the last so many (default all). Read from the executor's log files.
  app.get<IdParams>('/vice/:id/logs', async (request) => {
    const user = requireUserParam(request.query);
    const step = await stepOfAnalysis(user, request.params.id, 'read');
    const query = request.query as { container?: string; 'tail-lines'?: string };
    const file = path.join(
      executorWorkDir,
      'steps',
      `${step.analysis_id}-${step.step_number}`,
      'logs',
      query.container === 'stderr' ? 'stderr' : 'stdout',
    );
    const text = await readFile(file, 'utf8').catch(() => '');
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    const tail = Number(query['tail-lines']);
    return {
      since_time: seconds(step.start_date),
      lines: Number.isInteger(tail) && tail > 0 ? lines.slice(-tail) : lines,
    };
  });

  // Operators: the sessions run on this platform's own executor, the one operator, from
  // configuration; it is not added, changed or removed through the API. Listed as a bare array,
  // each with the fields the web UI's Operators tab shows, as the reference answers.
  const localOperator = {
    id: 'local',
    name: 'local',
    url: '',
    base_url: null,
    tls_skip_verify: false,
    priority: 0,
    accepting_launches: true,
    deactivated: false,
  };
  const fromConfiguration = () => {
    throw gatewayError(
      'ERR_ILLEGAL_ARGUMENT',
      'this platform runs interactive sessions on its own executor: its one operator comes from configuration',
    );
  };
  app.get('/vice/admin/operators', async () => [localOperator]);
  app.post('/vice/admin/operators', async () => fromConfiguration());
  app.patch('/vice/admin/operators/id/:id', async () => fromConfiguration());
  app.delete('/vice/admin/operators/id/:id', async () => fromConfiguration());
  app.get('/vice/admin/operators/capacities', async () => {
    const running = await db
      .selectFrom('analysis_steps')
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .where('step_type', '=', 'Interactive')
      .where('status', '=', 'Running')
      .executeTakeFirst();
    return { capacities: [{ operator: localOperator.name, running: Number(running?.count ?? 0) }] };
  });
};
