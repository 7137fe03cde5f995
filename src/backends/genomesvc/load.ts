import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { Type, type Static } from 'typebox';
import { baseName, joinDataPath } from '../../common/data-path.ts';
import { readableFile, type Caller, type DataObject } from '../data-info/index.ts';
import { failureReason } from './background.ts';
import { FastaCounter } from './fasta.ts';
import { DATA_STORE_TYPE, GENOME_FOLDER, type GenomeService } from './parts.ts';

export const LoadBody = Type.Object({
  source_data: Type.Array(
    Type.Object({ type: Type.Literal(DATA_STORE_TYPE), path: Type.String({ minLength: 1 }) }),
    { minItems: 1, maxItems: 100 },
  ),
  metadata: Type.Optional(
    Type.Object({
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      organism: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
      version: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
      restricted: Type.Optional(Type.Boolean()),
    }),
  ),
});
export type LoadRequest = Static<typeof LoadBody>;

export interface LoadAnswer {
  id: string;
  job_id: string;
  status: string;
  success: true;
  site_url: string;
}

/** `ecoli.fasta` → `ecoli`: the usual FASTA extensions (and `.txt`) are not part of a genome's name. */
function nameOf(path: string): string {
  return (
    baseName(path).replace(/\.(fasta|fa|fas|fna|ffn|faa|frn|mpfa|seq|txt)$/i, '') || baseName(path)
  );
}

/**
 * The sources' bytes one after the other, counted as FASTA on the way (a new line goes between
 * two files when the first does not end with one). The count is finished after the last byte, so
 * a file that is not FASTA fails the stream, and with it the write, before anything is kept.
 */
async function* fastaOf(
  service: GenomeService,
  sources: DataObject[],
  counter: FastaCounter,
): AsyncGenerator<Buffer> {
  let endsWithNewline = true;
  for (const source of sources) {
    if (!endsWithNewline) {
      const newline = Buffer.from('\n');
      counter.push(newline);
      yield newline;
    }
    const blob = await service.data.content(source);
    for await (const chunk of blob.stream() as AsyncIterable<Buffer>) {
      counter.push(chunk);
      if (chunk.length > 0) endsWithNewline = chunk[chunk.length - 1] === 0x0a;
      yield chunk;
    }
  }
  counter.finish();
}

/** The data-store files to load, each one a file the caller can read (the data store's own refusals otherwise). */
async function readableFiles(
  service: GenomeService,
  caller: Caller,
  paths: string[],
): Promise<DataObject[]> {
  const sources: DataObject[] = [];
  for (const path of paths) sources.push(await readableFile(service.data, caller, path));
  return sources;
}

/**
 * PUT /genomes: checks the sources as the caller, records the genome (`loading`) and its job,
 * answers at once, and loads in the background: the FASTA bytes are copied into the genome's own
 * storage and counted. Success marks the genome `loaded`; failure removes it. Either way the
 * caller gets a `data` notification (`action: genome_load`).
 */
export async function startLoad(
  service: GenomeService,
  caller: Caller,
  body: LoadRequest,
): Promise<LoadAnswer> {
  const { data, records } = service;
  const paths = [...new Set(body.source_data.map((source) => data.path(source.path, 'path')))];
  const sources = await readableFiles(service, caller, paths);
  const name = body.metadata?.name ?? nameOf(paths[0]!);
  // Its export will be `<home>/genomes/<name>.fasta`: a name that cannot be a file name is refused now.
  joinDataPath(
    `${data.catalog.basePaths(caller.name).user_home_path}/${GENOME_FOLDER}`,
    `${name}.fasta`,
    'metadata.name',
  );

  const id = randomUUID();
  const jobId = randomUUID();
  const now = service.now();
  await data.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('genomes')
      .values({
        id,
        name,
        organism: body.metadata?.organism ?? name,
        version: body.metadata?.version ?? '1',
        owner: caller.name,
        restricted: body.metadata?.restricted ?? true,
        source_paths: JSON.stringify(paths),
        status: 'loading',
        created_at: now,
      })
      .execute();
    await trx
      .insertInto('genome_jobs')
      .values({
        id: jobId,
        type: 'load',
        username: caller.name,
        genome_id: id,
        parameters: JSON.stringify(body),
        status: 'Running',
        paths: JSON.stringify(paths),
        created_at: now,
      })
      .execute();
  });
  service.jobs.start(`load ${id}`, () =>
    load(service, caller, { id, jobId, name, paths, sources }),
  );
  return { id, job_id: jobId, status: 'Running', success: true, site_url: records.link(id) };
}

interface Load {
  id: string;
  jobId: string;
  name: string;
  paths: string[];
  sources: DataObject[];
}

async function load(service: GenomeService, caller: Caller, job: Load): Promise<void> {
  const { data, records, genomeBytes } = service;
  const payload = {
    action: 'genome_load',
    genome_id: job.id,
    genome_name: job.name,
    job_id: job.jobId,
    paths: job.paths,
  };
  try {
    const counter = new FastaCounter();
    await genomeBytes.write(job.id, Readable.from(fastaOf(service, job.sources, counter)), {
      maxBytes: data.options.maxUploadBytes,
    });
    const counts = counter.finish();
    await data.db
      .updateTable('genomes')
      .set({ status: 'loaded', sequence_count: counts.sequences, total_length: counts.length })
      .where('id', '=', job.id)
      .execute();
    await records.finishJob(job.jobId, 'Completed', service.now());
    await service.notify({
      type: 'data',
      user: caller.name,
      subject: `Genome ${job.name} loaded`,
      message: `Genome ${job.name} loaded from ${job.paths.join(', ')}: ${counts.sequences} sequences, ${counts.length} letters.`,
      payload: {
        ...payload,
        status: 'Completed',
        sequence_count: counts.sequences,
        total_length: counts.length,
        genome_url: records.link(job.id),
      },
    });
  } catch (error) {
    const reason = failureReason(error, service.log, `load ${job.id}`);
    await genomeBytes.remove(job.id).catch(() => {});
    await data.db.deleteFrom('genomes').where('id', '=', job.id).execute();
    await records.finishJob(job.jobId, 'Failed', service.now(), reason);
    await service.notify({
      type: 'data',
      user: caller.name,
      subject: `Genome ${job.name} could not be loaded`,
      message: `Genome ${job.name} could not be loaded from ${job.paths.join(', ')}: ${reason}`,
      payload: { ...payload, status: 'Failed', error: reason },
    });
  }
}
