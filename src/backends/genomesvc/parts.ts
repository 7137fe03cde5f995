import type { FastifyBaseLogger } from 'fastify';
import type { BlobStore, DataStore } from '../data-info/index.ts';
import type { BackendContext } from '../service.ts';
import type { BackgroundJobs } from './background.ts';
import type { GenomeRecords } from './genome-records.ts';

/** What the genome service's loads and exports work with. */
export interface GenomeService {
  /** The data store, shared with data-info: the caller's permissions apply to every read and write. */
  data: DataStore;
  /** Genomes' FASTA bytes, by genome id (`<DATA_STORE_DIR>/genomes`, outside the data-store catalog). */
  genomeBytes: BlobStore;
  /** The service's own tables: genomes and their load and export jobs. */
  records: GenomeRecords;
  jobs: BackgroundJobs;
  notify: BackendContext['notify'];
  now: () => number;
  log: FastifyBaseLogger;
}

/** The folder of a user's home that exports go to (routes.md §15 "genome data folder"). */
export const GENOME_FOLDER = 'genomes';

/** The `type` of data-store files in load sources and export destinations. */
export const DATA_STORE_TYPE = 'data-store';
