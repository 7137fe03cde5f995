import { ServiceTokenVerifier } from '../../common/service-token.ts';
import { openBlobStore, openSharedDataStore } from '../data-info/index.ts';
import type { EmbeddedService } from '../service.ts';
import { BackgroundJobs } from './background.ts';
import { GenomeRecords } from './genome-records.ts';
import { genomeRoutes } from './genome-routes.ts';
import { GENOME_FOLDER, type GenomeService } from './parts.ts';

// The genome service's door: the service itself, for the embedded host; nothing else of it is for
// other parts of the project.

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
    const genomeBytes = openBlobStore(
      config.dataStore.dir,
      config.dataStore.blobStore,
      GENOME_FOLDER,
    );
    await genomeBytes.init();
    const verifier = new ServiceTokenVerifier(
      config.dataDir,
      'genomesvc',
      config.keys.serviceTokenKey,
    );
    const service: GenomeService = {
      data,
      genomeBytes,
      records: new GenomeRecords(store.db, config.genomes.baseUrl),
      jobs: new BackgroundJobs(app.log),
      notify,
      now: now ?? Date.now,
      log: app.log,
    };
    app.addHook('onClose', async () => service.jobs.drain());

    await app.register(genomeRoutes, { service, verifier });
  },
};
