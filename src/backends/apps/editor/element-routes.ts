// The element types apps are built from (routes.md §16 app-element-types): what an app editor
// offers. Each list is `{<type>: [{id, name, description}]}`; the ids are stable names.
import type { FastifyPluginAsync } from 'fastify';
import { parameterTypes, pathParameterTypes } from '../shared/index.ts';
import { referenceGenomeParameterTypes } from '../catalog/index.ts';
import { toolTypes } from '../tools/index.ts';
import { gatewayError } from '../../../common/errors.ts';

const named = (names: readonly string[], describe: (name: string) => string = () => '') =>
  names.map((name) => ({ id: name, name, description: describe(name) }));

const elements: Record<string, { id: string; name: string; description: string }[]> = {
  'parameter-types': named(parameterTypes, (name) =>
    pathParameterTypes.includes(name)
      ? 'a path in the data store'
      : referenceGenomeParameterTypes.includes(name)
        ? 'a reference genome (GET /reference-genomes); the job gets its path'
        : '',
  ),
  'tool-types': named(toolTypes, (name) =>
    name === 'executable' ? 'runs to completion, here on the embedded executor' : '',
  ),
  'value-types': named([
    'String',
    'Integer',
    'Double',
    'Flag',
    'Input',
    'Output',
    'EnvironmentVariable',
  ]),
  'info-types': named([
    'File',
    'Folder',
    'csv',
    'tsv',
    'fasta',
    'fastq',
    'bam',
    'vcf',
    'gff',
    'html',
    'txt',
  ]),
  'data-sources': named(['file', 'stdout', 'stderr']),
  'file-formats': named([
    'Unspecified',
    'CSV',
    'TSV',
    'FASTA',
    'FASTQ',
    'BAM',
    'VCF',
    'GFF',
    'Plain text',
    'JSON',
  ]),
  'rule-types': named([
    'IntBelow',
    'IntAbove',
    'IntRange',
    'DoubleBelow',
    'DoubleAbove',
    'DoubleRange',
    'Regex',
    'CharacterLimit',
  ]),
};

export const elementRoutes: FastifyPluginAsync = async (app) => {
  app.get('/apps/elements', async () =>
    Object.fromEntries(
      Object.entries(elements).map(([type, list]) => [type.replace(/-/g, '_'), list]),
    ),
  );

  app.get<{ Params: { type: string } }>('/apps/elements/:type', async (request) => {
    const list = elements[request.params.type.toLowerCase()];
    if (!list)
      throw gatewayError(
        'ERR_NOT_FOUND',
        `no element type ${request.params.type}; known: ${Object.keys(elements).join(', ')}`,
        { type: request.params.type },
      );
    return { [request.params.type.toLowerCase().replace(/-/g, '_')]: list };
  });
};
