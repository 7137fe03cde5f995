import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Selectable } from 'kysely';
import { Type } from 'typebox';
import type { Database, MetadataTargetType } from '../../store/schema.ts';
import {
  bodyObject,
  userOf,
  userQuery,
  Uuid,
  type MetadataOptions,
  type MetadataRoutes,
} from './requests.ts';
import { booleanParam, choiceParam } from '../../common/query-params.ts';
import { asBoolean } from '../../store/sqlite-booleans.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * Comments on apps and on files/folders (backends.md §3.1, spec "Comment", "States and
 * transitions"). The service trusts `user`; who may comment or read is the gateway's business.
 * Retracting needs the commenter, or the admin route (which the gateway takes when the caller
 * owns the target); readmitting needs the one who retracted it, admin routes included.
 */

type CommentRow = Selectable<Database['comments']>;

/** Where comments live: the path prefix(es) and the target types they hold. */
interface CommentFamily {
  /** Prefixes below which `/:targetId/comments` is served; the first is the spec's spelling. */
  prefixes: string[];
  types: readonly MetadataTargetType[];
  /** Whether POST takes `data-type` to say which of `types` the target is. */
  typed: boolean;
}

const dataFamily: CommentFamily = {
  prefixes: ['/filesystem/entry', '/filesystem/data'],
  types: ['file', 'folder'],
  typed: true,
};
const appFamily: CommentFamily = { prefixes: ['/apps'], types: ['app'], typed: false };

/** `Comment` (spec "Comment"). */
function present(row: CommentRow) {
  return {
    id: row.id,
    commenter: row.owner_id,
    post_time: Number(row.post_time),
    retracted: asBoolean(row.retracted),
    comment: row.value,
  };
}

/** `CommentDetails`: the comment plus its bookkeeping, for the admin listing. */
function presentDetails(row: CommentRow) {
  return {
    ...present(row),
    deleted: asBoolean(row.deleted),
    target_id: row.target_id,
    target_type: row.target_type,
    ...(row.retracted_by !== null ? { retracted_by: row.retracted_by } : {}),
  };
}

const targetParams = Type.Object({ targetId: Uuid });
const commentParams = Type.Object({ targetId: Uuid, commentId: Uuid });
const commenterParams = Type.Object({ commenter: Type.String({ minLength: 1, maxLength: 512 }) });

/** The body's `comment`: a string with something in it (checked here: the schema layer would coerce a number). */
function commentText(body: unknown): string {
  const text = bodyObject(body).comment;
  if (typeof text !== 'string' || text.trim() === '') {
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      'body field "comment" must be a non-blank string',
      { field: 'comment' },
    );
  }
  return text;
}

type TargetRequest = { Params: { targetId: string } };
type CommentRequest = { Params: { targetId: string; commentId: string } };

/** The comment, attached to that target and not deleted, or 404 ERR_NOT_FOUND naming both ids. */
async function attachedComment(
  { db }: MetadataOptions,
  family: CommentFamily,
  targetId: string,
  commentId: string,
): Promise<CommentRow> {
  const row = await db
    .selectFrom('comments')
    .selectAll()
    .where('id', '=', commentId.toLowerCase())
    .where('target_id', '=', targetId.toLowerCase())
    .where('target_type', 'in', family.types)
    .where('deleted', '=', false)
    .executeTakeFirst();
  if (!row)
    throw gatewayError('ERR_NOT_FOUND', `comment ${commentId} does not exist on ${targetId}`, {
      'comment-id': commentId,
      'target-id': targetId,
    });
  return row;
}

/**
 * The retraction state machine. Retracting an already retracted comment changes nothing (the
 * first retractor keeps the right to readmit it).
 */
async function setRetracted(
  options: MetadataOptions,
  comment: CommentRow,
  user: string,
  retracted: boolean,
  admin: boolean,
): Promise<void> {
  if (retracted) {
    if (!admin && comment.owner_id !== user)
      throw gatewayError('ERR_NOT_OWNER', `${user} doesn't own comment ${comment.id}`, {
        user,
        'comment-id': comment.id,
      });
    await options.db
      .updateTable('comments')
      .set({ retracted: true, retracted_by: user })
      .where('id', '=', comment.id)
      .where('retracted', '=', false)
      .execute();
    return;
  }
  if (comment.retracted_by !== user)
    throw gatewayError('ERR_NOT_OWNER', `${user} wasn't retractor of comment ${comment.id}`, {
      user,
      'comment-id': comment.id,
    });
  await options.db
    .updateTable('comments')
    .set({ retracted: false, retracted_by: null })
    .where('id', '=', comment.id)
    .execute();
}

function familyRoutes(app: FastifyInstance, options: MetadataOptions, family: CommentFamily): void {
  const { db } = options;
  for (const prefix of family.prefixes) {
    app.get<TargetRequest>(
      `${prefix}/:targetId/comments`,
      { schema: { params: targetParams } },
      async (request) => {
        const rows = await db
          .selectFrom('comments')
          .selectAll()
          .where('target_id', '=', request.params.targetId.toLowerCase())
          .where('target_type', 'in', family.types)
          .where('deleted', '=', false)
          .orderBy('post_time')
          .orderBy('id')
          .execute();
        return { comments: rows.map(present) };
      },
    );

    app.post<TargetRequest>(
      `${prefix}/:targetId/comments`,
      { schema: { params: targetParams, querystring: userQuery } },
      async (request, reply) => {
        const user = userOf(request);
        const targetType = family.typed
          ? choiceParam(request.query, 'data-type', family.types)
          : family.types[0]!;
        const text = commentText(request.body);
        const row: CommentRow = {
          id: randomUUID(),
          value: text,
          post_time: options.now(),
          retracted: false,
          retracted_by: null,
          deleted: false,
          target_id: request.params.targetId.toLowerCase(),
          target_type: targetType,
          owner_id: user,
        };
        await db
          .insertInto('comments')
          .values({ ...row, retracted: false, deleted: false })
          .execute();
        return reply.code(201).send({ comment: present(row) });
      },
    );

    for (const admin of [false, true]) {
      app.patch<CommentRequest>(
        `${admin ? '/admin' : ''}${prefix}/:targetId/comments/:commentId`,
        { schema: { params: commentParams, querystring: userQuery } },
        async (request, reply) => {
          const user = userOf(request);
          const retracted = booleanParam(request.query, 'retracted');
          const comment = await attachedComment(
            options,
            family,
            request.params.targetId,
            request.params.commentId,
          );
          await setRetracted(options, comment, user, retracted, admin);
          return reply.code(200).send();
        },
      );
    }

    // Admin removal of one comment: soft, so the admin listing still shows it (`deleted: true`).
    app.delete<CommentRequest>(
      `/admin${prefix}/:targetId/comments/:commentId`,
      { schema: { params: commentParams, querystring: userQuery } },
      async (request, reply) => {
        userOf(request);
        const comment = await attachedComment(
          options,
          family,
          request.params.targetId,
          request.params.commentId,
        );
        await db
          .updateTable('comments')
          .set({ deleted: true })
          .where('id', '=', comment.id)
          .execute();
        return reply.code(200).send();
      },
    );
  }
}

export const commentRoutes: MetadataRoutes = async (app, options) => {
  familyRoutes(app, options, dataFamily);
  familyRoutes(app, options, appFamily);

  app.get<{ Params: { commenter: string } }>(
    '/admin/comments/:commenter',
    { schema: { params: commenterParams, querystring: userQuery } },
    async (request) => {
      userOf(request);
      const rows = await options.db
        .selectFrom('comments')
        .selectAll()
        .where('owner_id', '=', request.params.commenter)
        .orderBy('post_time')
        .orderBy('id')
        .execute();
      return { comments: rows.map(presentDetails) };
    },
  );

  // Hard delete of everything the commenter wrote (e.g. when an account is removed).
  app.delete<{ Params: { commenter: string } }>(
    '/admin/comments/:commenter',
    { schema: { params: commenterParams, querystring: userQuery } },
    async (request, reply) => {
      userOf(request);
      await options.db
        .deleteFrom('comments')
        .where('owner_id', '=', request.params.commenter)
        .execute();
      return reply.code(200).send();
    },
  );
};
