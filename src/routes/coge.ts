// Tag: coge (the genome service, routes.md §15). Each call carries the caller in a short-lived
// token the gateway signs (`X-Vendor-De-Jwt`, 300 s: sub, email, given_name, family_name, name);
// the service's errors reach the client as 400 ERR_BAD_REQUEST, 404 ERR_NOT_FOUND or 500
// ERR_REQUEST_FAILED, with the service's reason.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { GatewayConfig } from '../config/index.ts';
import { documentedNotEnforced, routeSecurity, takesNoBody } from '../http/openapi.ts';
import type { BackendCall, Forwarder } from '../http/proxy.ts';
import { bodyText } from '../http/backend-answer.ts';
import { queryNormalizer } from '../common/query-params.ts';
import { ServiceTokenSigner } from '../common/service-token.ts';
import { GatewayError, gatewayError } from '../common/errors.ts';

export interface GenomeRouteDeps {
  forwarder: Forwarder;
  config: Pick<GatewayConfig, 'dataDir' | 'keys'>;
}

/** The `type` of data-store files in what the gateway sends the genome service. */
const DATA_STORE_TYPE = 'data-store';
const MIN_SEARCH_LENGTH = 3;
/** Longest reason relayed from a service answer that is not JSON (an HTML page, say). */
const MAX_REASON_CHARS = 500;

const Genome = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    organism: Type.Optional(Type.String()),
    version: Type.Optional(Type.String()),
    sequence_count: Type.Optional(Type.Number()),
    total_length: Type.Optional(Type.Number()),
    link: Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
const SearchQuery = Type.Object({
  search: Type.String({
    minLength: MIN_SEARCH_LENGTH,
    maxLength: 255,
    description: `At least ${MIN_SEARCH_LENGTH} characters`,
  }),
});
const LoadBody = Type.Object({
  paths: Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    maxItems: 100,
    description: 'FASTA files in the data store',
  }),
});
const ExportParams = Type.Object({ genomeId: Type.String({ minLength: 1, maxLength: 64 }) });
const ExportQuery = Type.Object(
  {
    notify: Type.Optional(
      Type.Boolean({
        default: false,
        description: 'Also e-mail the caller when the export is done',
      }),
    ),
    overwrite: Type.Optional(
      Type.Boolean({ default: false, description: 'Replace an existing export' }),
    ),
  },
  { additionalProperties: true },
);
const Job = Type.Object(
  { id: Type.Union([Type.String(), Type.Number()]), status: Type.Optional(Type.String()) },
  { additionalProperties: true },
);

/** The reason a service answer gives: its JSON `reason` (or `message`), else its text. */
function reasonOf(status: number, text: string): string {
  try {
    const body = JSON.parse(text) as { reason?: unknown; message?: unknown };
    if (typeof body.reason === 'string') return body.reason;
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: the text itself
  }
  return text.trim().slice(0, MAX_REASON_CHARS) || `The genome service answered ${status}.`;
}

/** routes.md §15: 400 → ERR_BAD_REQUEST, 404 → ERR_NOT_FOUND, anything else → 500 ERR_REQUEST_FAILED. */
export function genomeServiceError(status: number, text: string): GatewayError {
  const reason = reasonOf(status, text);
  if (status === 400) return gatewayError('ERR_BAD_REQUEST', reason);
  if (status === 404) return gatewayError('ERR_NOT_FOUND', reason);
  return gatewayError('ERR_REQUEST_FAILED', reason, { service_status: status });
}

const userOptions = (summary: string, description: string, schema: Record<string, unknown>) => ({
  ...documentedNotEnforced,
  config: { auth: 'user' as const },
  schema: { tags: ['coge'], summary, description, security: routeSecurity('user'), ...schema },
});

export async function cogeRoutes(app: FastifyInstance, deps: GenomeRouteDeps): Promise<void> {
  const signer = new ServiceTokenSigner(
    deps.config.dataDir,
    'genomesvc',
    deps.config.keys.serviceTokenKey,
  );

  /** One call to the genome service as the caller; its JSON answer, or its error mapped. */
  const genomeService = async <T>(
    request: FastifyRequest,
    call: Pick<BackendCall, 'method' | 'path' | 'json'>,
  ): Promise<T> => {
    const token = await signer.sign(request.identity!);
    const response = await deps.forwarder.call(
      'genomesvc',
      { ...call, identityStyle: 'none', headers: { 'x-vendor-de-jwt': token } },
      request.id,
    );
    const text = await bodyText('genomesvc', response);
    if (response.statusCode < 200 || response.statusCode >= 300)
      throw genomeServiceError(response.statusCode, text);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw gatewayError(
        'ERR_REQUEST_FAILED',
        'The genome service answered with something other than JSON.',
        { service_status: response.statusCode },
      );
    }
  };

  app.get('/genomesvc/genomes', {
    ...userOptions(
      'Search genomes',
      'Genomes whose name contains `search` (any case) that the caller may see: their own and public ones.',
      {
        querystring: SearchQuery,
        response: {
          200: Type.Object({ genomes: Type.Array(Genome) }, { additionalProperties: true }),
        },
      },
    ),
    preValidation: queryNormalizer(),
    handler: async (request) => {
      const { search } = request.query as { search: string };
      return genomeService(request, {
        method: 'GET',
        path: `/genomes/search/${encodeURIComponent(search)}`,
      });
    },
  });

  app.post('/genomesvc/genomes/load', {
    ...userOptions(
      'Load a genome from FASTA files',
      'Loads the FASTA files (which the caller must be able to read) as one genome, in the background; the caller is notified (`data`, action `genome_load`) when it is done or has failed.',
      { body: LoadBody, response: { 200: Type.Object({ genomesvc_genome_url: Type.String() }) } },
    ),
    handler: async (request) => {
      const { paths } = request.body as { paths: string[] };
      const answer = await genomeService<{ site_url?: unknown }>(request, {
        method: 'PUT',
        path: '/genomes',
        json: { source_data: paths.map((path) => ({ type: DATA_STORE_TYPE, path })) },
      });
      if (typeof answer?.site_url !== 'string')
        throw gatewayError(
          'ERR_REQUEST_FAILED',
          "The genome service did not name the loaded genome's URL.",
        );
      return { genomesvc_genome_url: answer.site_url };
    },
  });

  app.post('/genomesvc/genomes/:genomeId/export-fasta', {
    ...userOptions(
      'Export a genome as FASTA',
      'Writes the genome to `<home>/genomes/<name>.fasta` in the background (`overwrite` replaces an existing file; otherwise the job fails with ERR_EXISTS); the caller is notified (`data`, action `genome_export`). Answers the job.',
      { params: ExportParams, querystring: ExportQuery, response: { 200: Job }, ...takesNoBody },
    ),
    preValidation: queryNormalizer(),
    handler: async (request) => {
      const { genomeId } = request.params as { genomeId: string };
      const { notify = false, overwrite = false } = request.query as {
        notify?: boolean;
        overwrite?: boolean;
      };
      const email = request.identity!.email;
      return genomeService(request, {
        method: 'PUT',
        path: '/jobs',
        json: {
          type: 'export_fasta',
          parameters: {
            genome_id: genomeId,
            dest_type: DATA_STORE_TYPE,
            overwrite: overwrite ? 1 : 0,
            ...(notify && email ? { email } : {}),
          },
        },
      });
    },
  });
}
