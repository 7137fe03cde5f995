// The genome service's own tables: genomes (searched by name, described with their links) and
// the jobs that load and export them (genome_jobs). FASTA bytes are kept apart, in a BlobStore.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../../store/schema.ts';

export type GenomeRow = Selectable<Database['genomes']>;
export type GenomeJobRow = Selectable<Database['genome_jobs']>;

/** A genome as the service describes it. */
export interface GenomeDescription {
  id: string;
  name: string;
  organism: string;
  version: string;
  owner: string;
  restricted: boolean;
  source_paths: string[];
  sequence_count: number;
  total_length: number;
  date_created: number;
  /** Where the genome is described (GENOME_BASE_URL). */
  link: string;
}

/** A background job as the service describes it. */
export interface JobDescription {
  id: string;
  type: string;
  genome_id: string;
  status: string;
  error?: string;
  paths: string[];
  parameters: Record<string, unknown>;
  date_created: number;
  date_finished?: number;
}

/** Largest search answer. */
const MAX_SEARCH_RESULTS = 1000;

/** `term` as a LIKE pattern that matches it literally anywhere (escape character `\`). */
function containsPattern(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (character) => `\\${character}`)}%`;
}

/** The genomes and genome jobs tables, as the service reads and writes them. */
export class GenomeRecords {
  private readonly db: Kysely<Database>;
  private readonly baseUrl: string;

  constructor(
    db: Kysely<Database>,
    /** GENOME_BASE_URL, no trailing slash. */
    baseUrl: string,
  ) {
    this.db = db;
    this.baseUrl = baseUrl;
  }

  /** The genome's URL: the gateway's search for its id. */
  link(id: string): string {
    return `${this.baseUrl}?search=${encodeURIComponent(id)}`;
  }

  describe(row: GenomeRow): GenomeDescription {
    return {
      id: row.id,
      name: row.name,
      organism: row.organism,
      version: row.version,
      owner: row.owner,
      restricted: Boolean(row.restricted),
      source_paths: JSON.parse(row.source_paths) as string[],
      sequence_count: Number(row.sequence_count),
      total_length: Number(row.total_length),
      date_created: Number(row.created_at),
      link: this.link(row.id),
    };
  }

  describeJob(row: GenomeJobRow): JobDescription {
    return {
      id: row.id,
      type: row.type,
      genome_id: row.genome_id,
      status: row.status,
      ...(row.error === null ? {} : { error: row.error }),
      paths: JSON.parse(row.paths) as string[],
      parameters: JSON.parse(row.parameters) as Record<string, unknown>,
      date_created: Number(row.created_at),
      ...(row.finished_at === null ? {} : { date_finished: Number(row.finished_at) }),
    };
  }

  /** Loaded genomes `user` may see (their own and unrestricted ones) whose name or organism contains `term` (any case), or whose id is `term`. */
  async search(user: string, term: string): Promise<GenomeRow[]> {
    const pattern = containsPattern(term);
    return this.db
      .selectFrom('genomes')
      .selectAll()
      .where('status', '=', 'loaded')
      .where((eb) => eb.or([eb('owner', '=', user), eb('restricted', '=', false)]))
      .where((eb) =>
        eb.or([
          eb('id', '=', term.toLowerCase()),
          sql<boolean>`lower(name) like ${pattern} escape '\\'`,
          sql<boolean>`lower(organism) like ${pattern} escape '\\'`,
        ]),
      )
      .orderBy('name')
      .orderBy('id')
      .limit(MAX_SEARCH_RESULTS)
      .execute();
  }

  /** A loaded genome `user` may see, if any. */
  async visible(user: string, id: string): Promise<GenomeRow | undefined> {
    return this.db
      .selectFrom('genomes')
      .selectAll()
      .where('id', '=', id)
      .where('status', '=', 'loaded')
      .where((eb) => eb.or([eb('owner', '=', user), eb('restricted', '=', false)]))
      .executeTakeFirst();
  }

  async job(user: string, id: string): Promise<GenomeJobRow | undefined> {
    return this.db
      .selectFrom('genome_jobs')
      .selectAll()
      .where('id', '=', id)
      .where('username', '=', user)
      .executeTakeFirst();
  }

  async finishJob(
    id: string,
    status: 'Completed' | 'Failed',
    now: number,
    error?: string,
  ): Promise<void> {
    await this.db
      .updateTable('genome_jobs')
      .set({ status, finished_at: now, error: error ?? null })
      .where('id', '=', id)
      .execute();
  }
}
