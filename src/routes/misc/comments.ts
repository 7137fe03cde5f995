// Tags: misc (comments), admin-comments. routes.md §4, spec "Comments", "States and transitions" and
// "Errors" 5: comments on apps and on files and folders, kept by the metadata service. The gateway
// checks the target (the app exists; the entry exists and the caller can read it), and routes a
// retraction to metadata's admin variant when the caller owns the target.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isUuid } from '../../common/ids.ts';
import type { GatewayConfig } from '../../config/index.ts';
import type { Identity } from '../../common/identity.ts';
import { jsonAnswer } from '../../http/backend-answer.ts';
import { documentedNotEnforced, routeSecurity, takesNoBody } from '../../http/openapi.ts';
import type { Forwarder } from '../../http/proxy.ts';
import { queryNormalizer } from '../../common/query-params.ts';
import { dataInfoCall, readableStats } from '../../clients/data-info.ts';
import { metadataJson, type MetadataRequest } from '../../clients/metadata.ts';
import { gatewayError } from '../../common/errors.ts';

export interface CommentDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
}

const Comment = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    commenter: Type.String({ description: 'Username of the author' }),
    post_time: Type.Number({ description: 'Milliseconds since the epoch' }),
    retracted: Type.Boolean(),
    comment: Type.String(),
  },
  { additionalProperties: true },
);
const CommentDetails = Type.Intersect([
  Comment,
  Type.Object(
    {
      deleted: Type.Boolean(),
      target_id: Type.String(),
      target_type: Type.String(),
      retracted_by: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    },
    { additionalProperties: true },
  ),
]);
const CommentBody = Type.Object({
  comment: Type.String({
    minLength: 1,
    description: 'The text; at most COMMENT_MAX_BYTES UTF-8 bytes',
  }),
});
const RetractedQuery = Type.Object(
  {
    retracted: Type.String({
      description: '`true` retracts the comment, `false` readmits it (any letter case)',
    }),
  },
  { additionalProperties: true },
);
const AppParams = Type.Object({ appId: Type.String({ description: 'App UUID' }) });
const AppCommentParams = Type.Object({
  appId: Type.String({ description: 'App UUID' }),
  commentId: Type.String({ description: 'Comment UUID' }),
});
const EntryParams = Type.Object({ entryId: Type.String({ description: 'File or folder UUID' }) });
const EntryCommentParams = Type.Object({
  entryId: Type.String({ description: 'File or folder UUID' }),
  commentId: Type.String({ description: 'Comment UUID' }),
});
const CommenterParams = Type.Object({
  commenterId: Type.String({ description: 'Username of the commenter' }),
});

const notFound = (reason: string, extra: Record<string, unknown>) =>
  gatewayError('ERR_NOT_FOUND', reason, extra);

/** An id from the path that must be a UUID: anything else names nothing there is, so 404. */
function uuidParam(params: unknown, name: string): string {
  const value = (params as Record<string, string>)[name];
  const field = name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`); // appId → app-id, as the spec names it
  if (!isUuid(value))
    throw notFound(`${field} ${JSON.stringify(value)} names nothing: it is not a UUID`, {
      [field]: value,
    });
  return value.toLowerCase();
}

/** Spec "Errors" 5: `retracted` is required and must be true or false (any letter case); else 400. */
function retractedParam(query: unknown): boolean {
  const value = String((query as Record<string, unknown>).retracted).toLowerCase();
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw gatewayError(
    'ERR_BAD_QUERY_PARAMETER',
    'query parameter "retracted" must be true or false',
    { field: 'retracted' },
  );
}

/**
 * The body must hold `comment` as a JSON string: checked before validation, which would coerce a
 * number or boolean into one.
 */
async function commentIsText(request: FastifyRequest): Promise<void> {
  const body = request.body as Record<string, unknown> | null;
  if (
    typeof body === 'object' &&
    body !== null &&
    'comment' in body &&
    typeof body.comment !== 'string'
  ) {
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'body field "comment" must be a string', {
      field: 'comment',
    });
  }
}

/** Spec "Errors" 5 and Limits 3: a comment longer than COMMENT_MAX_BYTES is refused with 413. */
function commentText(deps: CommentDeps, body: unknown): string {
  const { comment } = body as { comment: string };
  const bytes = Buffer.byteLength(comment, 'utf8');
  if (bytes > deps.config.commentMaxBytes) {
    throw gatewayError(
      'ERR_REQUEST_BODY_TOO_LARGE',
      `the comment has ${bytes} bytes; at most ${deps.config.commentMaxBytes} are accepted`,
      {
        limit: deps.config.commentMaxBytes,
      },
    );
  }
  return comment;
}

/**
 * Metadata's answer to `call` (made as the caller) relayed with the route's success status; a
 * refusal keeps metadata's status and body.
 */
async function relay(
  deps: CommentDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  call: MetadataRequest,
  status = 200,
): Promise<unknown> {
  const body = await metadataJson<unknown>(deps, request, call);
  reply.code(status);
  return body ?? {};
}

/** A metadata call whose answer is relayed as none: 200 with no body (`emptyAnswer`). */
async function relayNothing(
  deps: CommentDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  call: MetadataRequest,
): Promise<FastifyReply> {
  await metadataJson<unknown>(deps, request, call);
  return reply.code(200).send();
}

/** What the gateway needs of an app's details (backends.md §5.1 AppDetails). */
interface AppDetails {
  integrator_email?: string | null;
  integrator_name?: string | null;
  integrator_username?: string | null;
}

/** The app's details from the apps service (system `de`), or its refusal (404 for an unknown app). */
async function appDetails(
  deps: CommentDeps,
  request: FastifyRequest,
  appId: string,
): Promise<AppDetails> {
  const answer = await deps.forwarder.call(
    'apps',
    {
      method: 'GET',
      path: `/apps/de/${appId}/details`,
      identity: request.identity,
      identityStyle: 'apps',
    },
    request.id,
  );
  if (answer.statusCode === 404) {
    await answer.body.dump();
    throw notFound(`no app has the id ${appId}`, { 'app-id': appId });
  }
  return (await jsonAnswer<AppDetails>('apps', answer)) ?? {};
}

/** The owner of an app is its integrator, recognised by email or by username. */
function ownsApp(deps: CommentDeps, identity: Identity | undefined, app: AppDetails): boolean {
  if (!identity) return false;
  const email = identity.email?.toLowerCase();
  if (email && app.integrator_email?.toLowerCase() === email) return true;
  const names = [identity.username, `${identity.username}@${deps.config.uidDomain}`];
  return [app.integrator_username, app.integrator_name].some(
    (name) => typeof name === 'string' && names.includes(name),
  );
}

interface EntryStat {
  type: 'file' | 'dir';
  permission: 'read' | 'write' | 'own';
}

/** The entry's type and the caller's permission; 404 when it does not exist or the caller cannot read it. */
async function readableEntry(
  deps: CommentDeps,
  request: FastifyRequest,
  entryId: string,
): Promise<EntryStat> {
  const stat = (
    await readableStats<EntryStat>(dataInfoCall(deps, request), [entryId], 'id,type,permission')
  ).get(entryId);
  if (!stat)
    throw notFound(`no file or folder with the id ${entryId} is readable by the caller`, {
      'entry-id': entryId,
    });
  return stat;
}

const dataType = (stat: EntryStat) => (stat.type === 'dir' ? 'folder' : 'file');

// Answers are metadata's, relayed: response schemas document them without reshaping them.
const userOptions = (
  summary: string,
  description: string | undefined,
  schema: Record<string, unknown>,
  tags: string[] = ['misc'],
) => ({
  ...documentedNotEnforced,
  config: { auth: 'user' as const },
  schema: {
    tags,
    summary,
    ...(description ? { description } : {}),
    security: routeSecurity('user'),
    ...schema,
  },
});

const adminOptions = (summary: string, schema: Record<string, unknown>) => ({
  ...documentedNotEnforced,
  config: { auth: 'admin' as const },
  schema: { tags: ['admin-comments'], summary, security: routeSecurity('admin'), ...schema },
});

/** The metadata service answers a retraction or a deletion 200 with no body. */
const emptyAnswer = { 200: Type.Null({ description: 'Done: the answer has no body' }) };

const retractionDescription =
  '`retracted=true` is allowed to the commenter and to the owner of the target (then the admin variant of the metadata service is used); `retracted=false` only to the one who retracted it. 403 otherwise; 409 when a query parameter is repeated with different values.';

export async function commentRoutes(app: FastifyInstance, deps: CommentDeps): Promise<void> {
  const commentLimit = deps.config.commentMaxBytes * 6 + 1024; // a JSON body whose comment is wholly \u-escaped

  // ---- apps ----
  app.post('/apps/:appId/comments', {
    ...userOptions(
      'Comment on an app',
      'Answers 201 `{comment}`; 404 when the app does not exist; 413 over COMMENT_MAX_BYTES.',
      {
        params: AppParams,
        body: CommentBody,
        response: { 201: Type.Object({ comment: Comment }) },
      },
    ),
    bodyLimit: commentLimit,
    preValidation: commentIsText,
    handler: async (request, reply) => {
      const appId = uuidParam(request.params, 'appId');
      const comment = commentText(deps, request.body);
      await appDetails(deps, request, appId);
      return relay(
        deps,
        request,
        reply,
        { method: 'POST', path: `/apps/${appId}/comments`, json: { comment } },
        201,
      );
    },
  });

  app.get('/apps/:appId/comments', {
    ...userOptions(
      'List the comments on an app',
      'Retracted comments are included (flagged); 404 when the app does not exist.',
      {
        params: AppParams,
        response: { 200: Type.Object({ comments: Type.Array(Comment) }) },
      },
    ),
    handler: async (request, reply) => {
      const appId = uuidParam(request.params, 'appId');
      await appDetails(deps, request, appId);
      return relay(deps, request, reply, { method: 'GET', path: `/apps/${appId}/comments` });
    },
  });

  app.patch('/apps/:appId/comments/:commentId', {
    ...userOptions(
      'Retract or readmit a comment on an app',
      retractionDescription,
      // A retraction reads `retracted` from the query, never a body.
      {
        params: AppCommentParams,
        querystring: RetractedQuery,
        response: emptyAnswer,
        ...takesNoBody,
      },
    ),
    preValidation: queryNormalizer(),
    handler: async (request, reply) => {
      const appId = uuidParam(request.params, 'appId');
      const commentId = uuidParam(request.params, 'commentId');
      const retracted = retractedParam(request.query);
      const details = await appDetails(deps, request, appId);
      const asOwner = retracted && ownsApp(deps, request.identity, details);
      const path = `${asOwner ? '/admin' : ''}/apps/${appId}/comments/${commentId}`;
      return relayNothing(deps, request, reply, {
        method: 'PATCH',
        path,
        query: { retracted: String(retracted) },
      });
    },
  });

  // ---- files and folders ----
  app.post('/secured/filesystem/entry/:entryId/comments', {
    ...userOptions(
      'Comment on a file or folder',
      'Answers 201 `{comment}`; 404 when the entry does not exist or the caller cannot read it; 413 over COMMENT_MAX_BYTES.',
      {
        params: EntryParams,
        body: CommentBody,
        response: { 201: Type.Object({ comment: Comment }) },
      },
    ),
    bodyLimit: commentLimit,
    preValidation: commentIsText,
    handler: async (request, reply) => {
      const entryId = uuidParam(request.params, 'entryId');
      const comment = commentText(deps, request.body);
      const stat = await readableEntry(deps, request, entryId);
      const call = {
        method: 'POST',
        path: `/filesystem/entry/${entryId}/comments`,
        query: { 'data-type': dataType(stat) },
        json: { comment },
      };
      return relay(deps, request, reply, call, 201);
    },
  });

  app.get('/secured/filesystem/entry/:entryId/comments', {
    ...userOptions(
      'List the comments on a file or folder',
      'Retracted comments are included (flagged); 404 when the entry does not exist or the caller cannot read it.',
      {
        params: EntryParams,
        response: { 200: Type.Object({ comments: Type.Array(Comment) }) },
      },
    ),
    handler: async (request, reply) => {
      const entryId = uuidParam(request.params, 'entryId');
      await readableEntry(deps, request, entryId);
      return relay(deps, request, reply, {
        method: 'GET',
        path: `/filesystem/entry/${entryId}/comments`,
      });
    },
  });

  // The spec's index also lists the route without `/secured`; both behave the same.
  for (const prefix of ['/secured', '']) {
    app.patch(`${prefix}/filesystem/entry/:entryId/comments/:commentId`, {
      ...userOptions('Retract or readmit a comment on a file or folder', retractionDescription, {
        params: EntryCommentParams,
        querystring: RetractedQuery,
        response: emptyAnswer,
        ...takesNoBody,
      }),
      preValidation: queryNormalizer(),
      handler: async (request, reply) => {
        const entryId = uuidParam(request.params, 'entryId');
        const commentId = uuidParam(request.params, 'commentId');
        const retracted = retractedParam(request.query);
        const stat = await readableEntry(deps, request, entryId);
        const asOwner = retracted && stat.permission === 'own';
        const path = `${asOwner ? '/admin' : ''}/filesystem/entry/${entryId}/comments/${commentId}`;
        return relayNothing(deps, request, reply, {
          method: 'PATCH',
          path,
          query: { retracted: String(retracted) },
        });
      },
    });
  }

  // ---- administration ----
  for (const [target, param, params] of [
    ['apps', 'appId', AppCommentParams],
    ['filesystem/entry', 'entryId', EntryCommentParams],
  ] as const) {
    const what = target === 'apps' ? 'an app' : 'a file or folder';
    const pathOf = (request: FastifyRequest) =>
      `/admin/${target}/${uuidParam(request.params, param)}/comments/${uuidParam(request.params, 'commentId')}`;

    app.patch(`/admin/${target}/:${param}/comments/:commentId`, {
      ...adminOptions(`Retract or readmit any comment on ${what}`, {
        params,
        querystring: RetractedQuery,
        response: emptyAnswer,
        ...takesNoBody,
      }),
      preValidation: queryNormalizer(),
      handler: async (request, reply) => {
        const path = pathOf(request);
        const retracted = retractedParam(request.query);
        return relayNothing(deps, request, reply, {
          method: 'PATCH',
          path,
          query: { retracted: String(retracted) },
        });
      },
    });

    const deleteOne = async (request: FastifyRequest, reply: FastifyReply) =>
      relayNothing(deps, request, reply, { method: 'DELETE', path: pathOf(request) });
    app.delete(`/admin/${target}/:${param}/comments/:commentId`, {
      ...adminOptions(`Delete a comment on ${what}`, { params, response: emptyAnswer }),
      handler: deleteOne,
    });
    // routes.md §4: the existing gateway spells this one `/admin/filsystem/...`; its clients keep working.
    if (target === 'filesystem/entry') {
      app.delete(`/admin/filsystem/entry/:${param}/comments/:commentId`, {
        ...adminOptions(
          `Delete a comment on ${what} (misspelled alias of /admin/filesystem/entry/...)`,
          { params, response: emptyAnswer },
        ),
        handler: deleteOne,
      });
    }
  }

  app.get('/admin/comments/:commenterId', {
    ...adminOptions('List every comment by one user', {
      params: CommenterParams,
      response: { 200: Type.Object({ comments: Type.Array(CommentDetails) }) },
    }),
    handler: async (request, reply) => {
      const { commenterId: commenter } = request.params as { commenterId: string };
      return relay(deps, request, reply, {
        method: 'GET',
        path: `/admin/comments/${encodeURIComponent(commenter)}`,
      });
    },
  });

  app.delete('/admin/comments/:commenterId', {
    ...adminOptions('Delete every comment by one user, for good', {
      params: CommenterParams,
      response: emptyAnswer,
    }),
    handler: async (request, reply) => {
      const { commenterId: commenter } = request.params as { commenterId: string };
      return relayNothing(deps, request, reply, {
        method: 'DELETE',
        path: `/admin/comments/${encodeURIComponent(commenter)}`,
      });
    },
  });
}
