// Reading instant launches (backends.md §6): which a caller may see (those whose quick launch they
// may view: their own and the public ones; anonymous callers the public ones), and the shapes they
// are answered in, plain and full (with their quick launch and app).
import type { Kysely } from 'kysely';
import type { FastifyRequest } from 'fastify';
import type { Database } from '../../store/schema.ts';
import { asBoolean } from '../../store/sqlite-booleans.ts';
import { qualifiedUsername } from '../../common/users.ts';
import { gatewayError } from '../../common/errors.ts';
import { shortName } from './caller.ts';

/** The caller named by `user` (short or qualified; `anonymous` for anonymous callers), if any. */
export function optionalCaller(request: FastifyRequest, uidDomain: string): string | undefined {
  const user = (request.query as { user?: unknown } | undefined)?.user;
  return typeof user === 'string' && user !== '' ? shortName(user, uidDomain) : undefined;
}

export const instantLaunchNotFound = (id: string) =>
  gatewayError('ERR_NOT_FOUND', `instant launch ${id} not found`, { id });

/**
 * Instant launches joined with their quick launch and app, limited to those `user` may see
 * (`everyone`: all of them, for administrators).
 */
export function visibleInstantLaunches(
  db: Kysely<Database>,
  user: string | undefined,
  everyone = false,
) {
  return (
    db
      .selectFrom('instant_launches')
      .innerJoin('quick_launches', 'quick_launches.id', 'instant_launches.quick_launch_id')
      .innerJoin('apps', 'apps.id', 'quick_launches.app_id')
      .leftJoin('app_versions', 'app_versions.id', 'quick_launches.app_version_id')
      // A deleted app cannot be launched: its instant launches are hidden until it is restored.
      .where('apps.deleted', '=', false)
      .where((eb) =>
        everyone
          ? eb.val(true)
          : user === undefined || user === 'anonymous'
            ? eb('quick_launches.is_public', '=', true)
            : eb.or([
                eb('quick_launches.creator', '=', user),
                eb('quick_launches.is_public', '=', true),
              ]),
      )
      .select([
        'instant_launches.id as id',
        'instant_launches.quick_launch_id as quick_launch_id',
        'instant_launches.added_by as added_by',
        'instant_launches.added_on as added_on',
        'quick_launches.name as quick_launch_name',
        'quick_launches.description as quick_launch_description',
        'quick_launches.creator as quick_launch_creator',
        'quick_launches.is_public as quick_launch_is_public',
        'quick_launches.submission as submission',
        'quick_launches.app_id as app_id',
        'quick_launches.app_version_id as app_version_id',
        'apps.name as app_name',
        'apps.description as app_description',
        'app_versions.version as app_version',
      ])
      .orderBy('instant_launches.added_on')
      .orderBy('instant_launches.id')
  );
}

export type InstantLaunchRow = Awaited<
  ReturnType<ReturnType<typeof visibleInstantLaunches>['execute']>
>[number];

/** InstantLaunch = `{id, quick_launch_id, added_by, added_on}`; `added_by` qualified, `added_on` ISO 8601. */
export function plainInstantLaunch(
  row: Pick<InstantLaunchRow, 'id' | 'quick_launch_id' | 'added_by' | 'added_on'>,
  uidDomain: string,
) {
  return {
    id: row.id,
    quick_launch_id: row.quick_launch_id,
    added_by: qualifiedUsername(row.added_by, uidDomain),
    added_on: new Date(Number(row.added_on)).toISOString(),
  };
}

/** FullInstantLaunch: the instant launch with its quick launch's name, submission and app. */
export function fullInstantLaunch(row: InstantLaunchRow, uidDomain: string) {
  return {
    ...plainInstantLaunch(row, uidDomain),
    quick_launch_name: row.quick_launch_name,
    quick_launch_description: row.quick_launch_description,
    quick_launch_creator: qualifiedUsername(row.quick_launch_creator, uidDomain),
    quick_launch_is_public: asBoolean(row.quick_launch_is_public),
    submission: JSON.parse(row.submission) as unknown,
    app_id: row.app_id,
    app_version_id: row.app_version_id,
    app_version: row.app_version ?? null,
    app_name: row.app_name,
    app_description: row.app_description,
  };
}
