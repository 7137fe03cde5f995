// The genome service's routes (routes.md §15): search genomes by name, load genomes from FASTA
// files, export one as FASTA, and read a load or export job. The caller is the subject of the
// gateway-signed token in `X-Vendor-De-Jwt`, made a data-store user (ERR_NOT_A_USER for names
// that cannot own a home).
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { ServiceTokenVerifier } from '../../common/service-token.ts';
import { gatewayError } from '../../common/errors.ts';
import { JobBody, startExport, type JobRequest } from './export.ts';
import { callerOf } from './identity.ts';
import { LoadBody, startLoad, type LoadRequest } from './load.ts';
import type { GenomeService } from './parts.ts';

/** Shortest search term (routes.md §15). */
const MIN_SEARCH_LENGTH = 3;

const SearchParams = Type.Object({ search: Type.String({ maxLength: 255 }) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const genomeRoutes: FastifyPluginAsync<{
  service: GenomeService;
  verifier: ServiceTokenVerifier;
}> = async (app, { service, verifier }) => {
  /** The caller as a data-store user (ERR_NOT_A_USER for names that cannot own a home). */
  const caller = async (request: Parameters<typeof callerOf>[1]) =>
    service.data.writer((await callerOf(verifier, request)).sub);

  app.get<{ Params: { search: string } }>(
    '/genomes/search/:search',
    { schema: { params: SearchParams } },
    async (request) => {
      const who = await caller(request);
      const term = request.params.search.trim();
      if (term.length < MIN_SEARCH_LENGTH) {
        throw gatewayError(
          'ERR_BAD_REQUEST',
          `a search needs at least ${MIN_SEARCH_LENGTH} characters`,
          { search: term },
        );
      }
      const rows = await service.records.search(who.name, term);
      return { genomes: rows.map((row) => service.records.describe(row)) };
    },
  );

  app.put<{ Body: LoadRequest }>('/genomes', { schema: { body: LoadBody } }, async (request) =>
    startLoad(service, await caller(request), request.body),
  );

  app.put<{ Body: JobRequest }>('/jobs', { schema: { body: JobBody } }, async (request) =>
    startExport(service, await caller(request), request.body),
  );

  app.get<{ Params: { id: string } }>(
    '/jobs/:id',
    { schema: { params: IdParams } },
    async (request) => {
      const who = await caller(request);
      const job = await service.records.job(who.name, request.params.id);
      if (!job)
        throw gatewayError('ERR_NOT_FOUND', `no job ${request.params.id} of ${who.name}`, {
          id: request.params.id,
        });
      return service.records.describeJob(job);
    },
  );
};
