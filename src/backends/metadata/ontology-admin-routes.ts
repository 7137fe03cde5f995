import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  addOntology,
  deleteHierarchy,
  loadGraph,
  markOntologyDeleted,
  saveHierarchy,
  savedHierarchies,
} from './ontology-store.ts';
import { userOf, userQuery, type MetadataRoutes } from './requests.ts';
import { GatewayError, gatewayError } from '../../common/errors.ts';

/**
 * Ontology administration in the metadata service (backends.md §3.6): upload (multipart part
 * `ontology-xml`, as the reference takes it), logical delete, and saving or deleting the
 * hierarchy under a class. The gateway lets only administrators reach these paths.
 */

/** Largest ontology document read (it is parsed in memory); EDAM, the reference's, is a few MiB. */
export const ONTOLOGY_MAX_BYTES = 64 * 1024 * 1024;

const versionParams = Type.Object({ version: Type.String({ minLength: 1 }) });
const rootParams = Type.Object({
  version: Type.String({ minLength: 1 }),
  rootIri: Type.String({ minLength: 1 }),
});
type VersionRequest = { Params: { version: string } };
type RootRequest = { Params: { version: string; rootIri: string } };

const missingPart = () =>
  gatewayError(
    'ERR_MISSING_FORM_FIELD',
    'the body must be multipart/form-data with a part named "ontology-xml"',
    { field: 'ontology-xml' },
  );

/** The text of the `ontology-xml` part (a file or a plain field); other parts are skipped. */
async function ontologyXmlPart(request: FastifyRequest): Promise<string> {
  if (!request.isMultipart()) throw missingPart();
  try {
    for await (const part of request.parts()) {
      if (part.fieldname !== 'ontology-xml') {
        if (part.type === 'file') part.file.resume();
        continue;
      }
      if (part.type === 'field') return String(part.value);
      return (await part.toBuffer()).toString('utf8');
    }
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    const code = (error as { code?: string }).code;
    if (
      code === 'FST_REQ_FILE_TOO_LARGE' ||
      code === 'FST_FIELDS_LIMIT' ||
      code === 'FST_PARTS_LIMIT'
    ) {
      throw gatewayError(
        'ERR_REQUEST_BODY_TOO_LARGE',
        `ontology documents are limited to ${ONTOLOGY_MAX_BYTES} bytes`,
        { limit: ONTOLOGY_MAX_BYTES },
      );
    }
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `the multipart body could not be read: ${(error as Error).message}`,
      { field: 'ontology-xml' },
    );
  }
  throw missingPart();
}

export const ontologyAdminRoutes: MetadataRoutes = async (app, { db, now }) => {
  // Only this scope reads multipart bodies; the rest of the service stays JSON.
  await app.register(multipart, {
    limits: {
      fileSize: ONTOLOGY_MAX_BYTES,
      fieldSize: ONTOLOGY_MAX_BYTES,
      fields: 20,
      parts: 20,
      headerPairs: 200,
    },
    throwFileSizeLimit: true,
  });

  app.post('/admin/ontologies', { schema: { querystring: userQuery } }, async (request) => {
    const user = userOf(request);
    return addOntology(db, user, now(), await ontologyXmlPart(request));
  });

  app.delete<VersionRequest>(
    '/admin/ontologies/:version',
    { schema: { params: versionParams, querystring: userQuery } },
    async (request, reply) => {
      userOf(request);
      await markOntologyDeleted(db, request.params.version);
      return reply.code(200).send();
    },
  );

  app.put<RootRequest>(
    '/admin/ontologies/:version/:rootIri',
    { schema: { params: rootParams, querystring: userQuery } },
    async (request) => {
      userOf(request);
      return {
        hierarchy: await saveHierarchy(db, request.params.version, request.params.rootIri, now()),
      };
    },
  );

  app.delete<RootRequest>(
    '/admin/ontologies/:version/:rootIri',
    { schema: { params: rootParams, querystring: userQuery } },
    async (request) => {
      userOf(request);
      await deleteHierarchy(db, request.params.version, request.params.rootIri);
      return { hierarchies: savedHierarchies(await loadGraph(db, request.params.version)) };
    },
  );
};
