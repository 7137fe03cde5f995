import path from 'node:path';
import { Type } from 'typebox';
import { ServiceTokenVerifier } from '../../common/service-token.js';
import { BlobStore, openSharedDataStore } from '../data-info/index.js';
import type { EmbeddedService } from '../service.js';
import { BackgroundJobs } from './background.js';
import { GenomeCatalog } from './genome-records.js';
import { JobBody, startExport, type JobRequest } from './export.js';
import { callerOf } from './identity.js';
import { LoadBody, startLoad, type LoadRequest } from './load.js';
import { GENOME_FOLDER, type GenomeService } from './parts.js';
import { gatewayError } from '../../common/errors.js';

/** Shortest search term (routes.md §15). */
export const MIN_SEARCH_LENGTH = 3;

const SearchParams = Type.Object({ search: Type.String({ maxLength: 255 }) });
const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

/**
 * The genome service (routes.md §15, backends.md §8): genomes loaded from the caller's FASTA files
 * in the data store, searched by name, exported back as FASTA. The caller is the subject of the
 * gateway-signed token in `X-Vendor-De-Jwt`; every data-store read and write is made as that user
 * through the data store data-info runs on, so their permissions apply.
 */
export const genomeService: EmbeddedService = {
  name: 'genomesvc',
  plugin: async (app, { store, config, notify, now }) => {
    const data = await openSharedDataStore(store.db, { ...config.dataStore });
    const genomeBytes = new BlobStore(path.join(config.dataStore.dir, GENOME_FOLDER));
    await genomeBytes.init();
    const verifier = new ServiceTokenVerifier(config.dataDir, 'genomesvc');
    const service: GenomeService = {
      data,
      genomeBytes,
      catalog: new GenomeCatalog(store.db, config.genomes.baseUrl),
      jobs: new BackgroundJobs(app.log),
      notify,
      now: now ?? Date.now,
      log: app.log,
    };
    app.addHook('onClose', async () => service.jobs.drain());

    /** The caller as a data-store user (ERR_NOT_A_USER for names that cannot own a home). */
    const caller = async (request: Parameters<typeof callerOf>[1]) =>
      data.writer((await callerOf(verifier, request)).sub);

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
        const rows = await service.catalog.search(who.name, term);
        return { genomes: rows.map((row) => service.catalog.describe(row)) };
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
        const job = await service.catalog.job(who.name, request.params.id);
        if (!job)
          throw gatewayError('ERR_NOT_FOUND', `no job ${request.params.id} of ${who.name}`, {
            id: request.params.id,
          });
        return service.catalog.describeJob(job);
      },
    );
  },
};
