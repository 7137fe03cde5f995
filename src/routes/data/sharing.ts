// Tag data: sharing and unsharing files and folders (routes.md §13), each change told to the
// sharee and the owner as `data` notifications.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { ErrorAnswer, toGatewayError } from '../../common/error-replies.ts';
import { sendNotification } from '../../http/notifications.ts';
import { documentedNotEnforced } from '../../http/openapi.ts';
import { routeAtBoth } from '../../http/secured-alias.ts';
import { type FilesystemDeps } from '../filesystem/support.ts';
import { dataInfo } from '../../clients/data-info.ts';
import { gatewayError } from '../../common/errors.ts';

export type DataDeps = FilesystemDeps;

/** A sharee as clients name one: a username, or a groups-service subject whose `id` is the name. */
interface Sharee {
  user?: string;
  subject?: { id: string; source_id?: string };
}

const Subject = Type.Object(
  { id: Type.String({ minLength: 1 }), source_id: Type.Optional(Type.String()) },
  { additionalProperties: true },
);
const ShareeFields = {
  user: Type.Optional(Type.String({ minLength: 1 })),
  subject: Type.Optional(Subject),
};
const Permission = Type.Union([Type.Literal('read'), Type.Literal('write'), Type.Literal('own')]);

const Outcome = {
  success: Type.Boolean(),
  reason: Type.Optional(Type.String()),
  error: Type.Optional(ErrorAnswer),
};

const ShareBody = Type.Object({
  sharing: Type.Array(
    Type.Object({
      ...ShareeFields,
      paths: Type.Array(Type.Object({ path: Type.String(), permission: Permission })),
    }),
  ),
});
const UnshareBody = Type.Object({
  unshare: Type.Array(Type.Object({ ...ShareeFields, paths: Type.Array(Type.String()) })),
});
const ShareAnswer = Type.Object({
  sharing: Type.Array(
    Type.Object({
      ...ShareeFields,
      sharing: Type.Array(
        Type.Object(
          { path: Type.String(), permission: Type.String(), ...Outcome },
          { additionalProperties: true },
        ),
      ),
    }),
  ),
});
const UnshareAnswer = Type.Object({
  unshare: Type.Array(
    Type.Object({
      ...ShareeFields,
      unshare: Type.Array(
        Type.Object({ path: Type.String(), ...Outcome }, { additionalProperties: true }),
      ),
    }),
  ),
});

function shareeName(sharee: Sharee): string {
  const name = sharee.user ?? sharee.subject?.id;
  if (name === undefined)
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'each entry needs "user" or "subject"', {
      field: 'user',
    });
  return name;
}

/**
 * Files and folders are shared with users: a group subject (a team or collaborator list, source
 * `g:...`, which the subject search offers for apps and analyses) fails for each of its paths
 * rather than reaching data-info as a user name.
 */
function refuseGroupSharee(sharee: Sharee): void {
  if (sharee.user === undefined && sharee.subject?.source_id?.startsWith('g:'))
    throw gatewayError(
      'ERR_NOT_A_USER',
      'files and folders are shared with users: share them with the members of the team or list',
      { subject: sharee.subject },
    );
}

/** How the client named the sharee, echoed in the answer. */
const shareeKey = (sharee: Sharee) =>
  sharee.user !== undefined ? { user: sharee.user } : { subject: sharee.subject };

/** A whole data-info call that failed becomes the error of each of its paths: failures are reported, not thrown. */
function asPathError(
  error: unknown,
): { error_code: string; reason: string } & Record<string, unknown> {
  const failure = toGatewayError(error as Error);
  return { error_code: failure.errorCode, reason: failure.reason, ...failure.extra };
}

/** Sharing notifications name the paths up to this many (routes.md §13). */
const inlinePaths = 10;

/**
 * The sharer and the sharee each get a `data` notification (routes.md §13: action `share` or
 * `unshare`, the paths inline when fewer than 10). Not waited for: the answer reports the sharing.
 */
function notifySharing(
  deps: DataDeps,
  request: FastifyRequest,
  action: 'share' | 'unshare',
  sharee: string,
  paths: string[],
): void {
  const sharer = request.identity?.username;
  if (!sharer || paths.length === 0) return;
  const what =
    paths.length === 1 ? paths[0]!.slice(paths[0]!.lastIndexOf('/') + 1) : `${paths.length} items`;
  const payload = {
    action,
    sharer,
    sharee,
    count: paths.length,
    ...(paths.length < inlinePaths ? { paths } : {}),
  };
  const [toSharer, toSharee] =
    action === 'share'
      ? [`${what} shared with ${sharee}`, `${sharer} shared ${what} with you`]
      : [`${what} no longer shared with ${sharee}`, `${sharer} stopped sharing ${what} with you`];
  for (const [user, subject] of [
    [sharer, toSharer],
    [sharee, toSharee],
  ] as const) {
    void sendNotification(
      deps.forwarder,
      { type: 'data', user, subject, payload: { ...payload, user } },
      request.log,
      request.id,
    );
  }
}

interface PathOutcome {
  path: string;
  success: boolean;
}
type ShareOutcome = PathOutcome & { permission: string };

/**
 * Runs one data-info call per sharee, side by side (every sharee named before any call). A call
 * that fails as a whole becomes the error of each of its paths: failures are reported, not thrown.
 */
async function perSharee<E extends Sharee, O extends PathOutcome>(
  deps: DataDeps,
  request: FastifyRequest,
  action: 'share' | 'unshare',
  entries: E[],
  change: (user: string, entry: E) => Promise<O[]>,
  failed: (entry: E, error: ReturnType<typeof asPathError>) => O[],
): Promise<{ sharee: ReturnType<typeof shareeKey>; outcomes: O[] }[]> {
  const users = entries.map(shareeName);
  return Promise.all(
    entries.map(async (entry, index) => {
      const user = users[index]!;
      let outcomes: O[];
      try {
        refuseGroupSharee(entry);
        outcomes = await change(user, entry);
      } catch (error) {
        outcomes = failed(entry, asPathError(error));
      }
      notifySharing(
        deps,
        request,
        action,
        user,
        outcomes.filter((outcome) => outcome.success).map((outcome) => outcome.path),
      );
      return { sharee: shareeKey(entry), outcomes };
    }),
  );
}

/** Sharing (routes.md §13): one data-info call per sharee, per-path results. */
export async function sharingRoutes(app: FastifyInstance, deps: DataDeps): Promise<void> {
  routeAtBoth(app, 'user', {
    method: 'POST',
    url: '/share',
    ...documentedNotEnforced,
    schema: {
      tags: ['data'],
      summary: 'Grant users read, write or own permission on files and folders',
      description:
        'One data-info call per sharee; each path reports `success` and, when it failed, `error` `{error_code, reason}`.',
      body: ShareBody,
      response: { 200: ShareAnswer },
    },
    handler: async (request: FastifyRequest) => {
      const { sharing } = request.body as {
        sharing: (Sharee & { paths: { path: string; permission: string }[] })[];
      };
      const results = await perSharee(
        deps,
        request,
        'share',
        sharing,
        async (user, entry) => {
          const answer = await dataInfo<{ sharing: { user: string; sharing: ShareOutcome[] }[] }>(
            deps,
            request,
            {
              method: 'POST',
              path: '/sharer',
              json: { sharing: [{ user, paths: entry.paths }] },
            },
          );
          return answer.sharing.flatMap((item) => item.sharing);
        },
        (entry, error) =>
          entry.paths.map(({ path, permission }) => ({ path, permission, success: false, error })),
      );
      return { sharing: results.map(({ sharee, outcomes }) => ({ ...sharee, sharing: outcomes })) };
    },
  });

  routeAtBoth(app, 'user', {
    method: 'POST',
    url: '/unshare',
    ...documentedNotEnforced,
    schema: {
      tags: ['data'],
      summary: "Revoke users' permissions on files and folders",
      description:
        'One data-info call per sharee; each path reports `success` and, when it failed, `error` `{error_code, reason}`.',
      body: UnshareBody,
      response: { 200: UnshareAnswer },
    },
    handler: async (request: FastifyRequest) => {
      const { unshare } = request.body as { unshare: (Sharee & { paths: string[] })[] };
      const results = await perSharee(
        deps,
        request,
        'unshare',
        unshare,
        async (user, entry) => {
          const answer = await dataInfo<{ unshare: { user: string; unshare: PathOutcome[] }[] }>(
            deps,
            request,
            {
              method: 'POST',
              path: '/unsharer',
              json: { unshare: [{ user, paths: entry.paths }] },
            },
          );
          return answer.unshare.flatMap((item) => item.unshare);
        },
        (entry, error) => entry.paths.map((path) => ({ path, success: false, error })),
      );
      return { unshare: results.map(({ sharee, outcomes }) => ({ ...sharee, unshare: outcomes })) };
    },
  });
}
