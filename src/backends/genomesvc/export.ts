import { randomUUID } from 'node:crypto';
import { Type, type Static } from 'typebox';
import { joinDataPath, parentOf } from '../../common/data-path.ts';
import {
  createFile,
  createFolders,
  replaceContent,
  requireAccess,
  type Caller,
  type DataObject,
} from '../data-info/index.ts';
import { failureReason } from './background.ts';
import type { GenomeRow } from './genome-records.ts';
import { DATA_STORE_TYPE, GENOME_FOLDER, type GenomeService } from './parts.ts';
import { errorAs, gatewayError } from '../../common/errors.ts';

/** PUT /jobs (routes.md §15): `{type: "export_fasta", parameters: {genome_id, dest_type, overwrite 0/1, email?}}`. */
export const JobBody = Type.Object({
  type: Type.String({ minLength: 1 }),
  parameters: Type.Object({
    genome_id: Type.String({ minLength: 1, maxLength: 64 }),
    dest_type: Type.Optional(Type.Literal(DATA_STORE_TYPE)),
    overwrite: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)])),
    email: Type.Optional(Type.String()),
  }),
});
export type JobRequest = Static<typeof JobBody>;

export interface ExportAnswer {
  id: string;
  type: 'export_fasta';
  genome_id: string;
  path: string;
  status: string;
  success: true;
}

function exportPath(service: GenomeService, caller: Caller, genome: GenomeRow): string {
  const folder = `${service.data.catalog.basePaths(caller.name).user_home_path}/${GENOME_FOLDER}`;
  return joinDataPath(folder, `${genome.name}.fasta`, 'name');
}

/** The destination may be taken only when overwriting, and then only by a file the caller can write. */
async function checkDestination(
  service: GenomeService,
  caller: Caller,
  path: string,
  overwrite: boolean,
): Promise<DataObject | undefined> {
  const existing = await service.data.catalog.byPath(path);
  if (!existing) return undefined;
  if (!overwrite)
    throw errorAs(
      'ERR_EXISTS',
      'conflict',
      `${path} already exists (export with overwrite=1 to replace it)`,
      { path },
    );
  if (existing.type !== 'file')
    throw gatewayError('ERR_NOT_A_FILE', `${path} is a folder`, { path });
  await requireAccess(service.data, caller, existing, 'write');
  return existing;
}

/**
 * PUT /jobs with `export_fasta`: the genome (the caller's or unrestricted) is written as
 * `<home>/genomes/<name>.fasta` in the background, as the caller. An existing file is replaced
 * only with `overwrite: 1` (ERR_EXISTS otherwise, before the job starts and again when it writes).
 */
export async function startExport(
  service: GenomeService,
  caller: Caller,
  body: JobRequest,
): Promise<ExportAnswer> {
  if (body.type !== 'export_fasta') {
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `job type "${body.type}" is not supported (only "export_fasta")`,
      { field: 'type' },
    );
  }
  const { genome_id: genomeId, overwrite = 0 } = body.parameters;
  const genome = await service.records.visible(caller.name, genomeId);
  if (!genome)
    throw gatewayError('ERR_NOT_FOUND', `no genome ${genomeId} is available to ${caller.name}`, {
      genome_id: genomeId,
    });
  const path = exportPath(service, caller, genome);
  await checkDestination(service, caller, path, overwrite === 1);

  const jobId = randomUUID();
  await service.data.db
    .insertInto('genome_jobs')
    .values({
      id: jobId,
      type: 'export_fasta',
      username: caller.name,
      genome_id: genome.id,
      parameters: JSON.stringify(body.parameters),
      status: 'Running',
      paths: JSON.stringify([path]),
      created_at: service.now(),
    })
    .execute();
  service.jobs.start(`export ${jobId}`, () =>
    exportFasta(service, caller, { jobId, genome, path, overwrite: overwrite === 1 }),
  );
  return {
    id: jobId,
    type: 'export_fasta',
    genome_id: genome.id,
    path,
    status: 'Running',
    success: true,
  };
}

interface Export {
  jobId: string;
  genome: GenomeRow;
  path: string;
  overwrite: boolean;
}

/** Writes the genome's bytes to the destination: a new file, or (overwriting) the existing file's new content. */
async function writeFasta(service: GenomeService, caller: Caller, job: Export): Promise<void> {
  const { data, genomeBytes } = service;
  await createFolders(data, caller, [parentOf(job.path)]);
  const existing = await checkDestination(service, caller, job.path, job.overwrite);
  const bytes = () => genomeBytes.read(job.genome.id);
  if (existing) await replaceContent(data, existing, (id) => data.blobs.write(id, bytes()));
  else await createFile(data, caller, job.path, bytes());
}

async function exportFasta(service: GenomeService, caller: Caller, job: Export): Promise<void> {
  const payload = {
    action: 'genome_export',
    genome_id: job.genome.id,
    genome_name: job.genome.name,
    job_id: job.jobId,
    path: job.path,
    paths: [job.path],
  };
  try {
    await writeFasta(service, caller, job);
    await service.records.finishJob(job.jobId, 'Completed', service.now());
    await service.notify({
      type: 'data',
      user: caller.name,
      subject: `Genome ${job.genome.name} exported to ${job.path}`,
      payload: { ...payload, status: 'Completed' },
    });
  } catch (error) {
    const reason = failureReason(error, service.log, `export ${job.jobId}`);
    await service.records.finishJob(job.jobId, 'Failed', service.now(), reason);
    await service.notify({
      type: 'data',
      user: caller.name,
      subject: `Genome ${job.genome.name} could not be exported`,
      message: `Genome ${job.genome.name} could not be exported to ${job.path}: ${reason}`,
      payload: { ...payload, status: 'Failed', error: reason },
    });
  }
}
