import mime from 'mime-types';

/**
 * Media types and info types of files (backends.md §2.2, §2.7). The media type comes from the
 * name; where the name says nothing specific, from the first bytes (text or binary). The info
 * type (what kind of data a file holds, for apps' input selection) comes from the name alone.
 */

export const genericContentType = 'application/octet-stream';

/** Info types a file may be given (`GET /file-types`, `PUT /data/{id}/type`). */
export const infoTypes = [
  'ace',
  'bam',
  'bash',
  'bed',
  'blast',
  'bowtie',
  'clustalw',
  'codata',
  'csh',
  'csv',
  'embl',
  'fasta',
  'fastq',
  'fastxy',
  'gcg',
  'gcg-blast',
  'gcg-fasta',
  'gde',
  'genbank',
  'genscan',
  'gff',
  'gtf',
  'hmmer',
  'html',
  'json',
  'ksh',
  'mase',
  'mega',
  'msf',
  'newick',
  'nexml',
  'nexus',
  'perl',
  'phylip',
  'phyloxml',
  'pir',
  'prodom',
  'python',
  'raw',
  'rdf',
  'sam',
  'sh',
  'stockholm',
  'swiss',
  'tcsh',
  'tsv',
  'txt',
  'vcf',
  'xml',
  'zsh',
] as const;

const infoTypeSet = new Set<string>(infoTypes);

export function isInfoType(value: string): boolean {
  return infoTypeSet.has(value);
}

/** Extension (lower case, no dot) → info type. */
const infoTypeByExtension: Record<string, string> = {
  csv: 'csv',
  tsv: 'tsv',
  tab: 'tsv',
  fa: 'fasta',
  fas: 'fasta',
  fasta: 'fasta',
  fna: 'fasta',
  ffn: 'fasta',
  faa: 'fasta',
  frn: 'fasta',
  fq: 'fastq',
  fastq: 'fastq',
  bam: 'bam',
  sam: 'sam',
  vcf: 'vcf',
  gff: 'gff',
  gff3: 'gff',
  gtf: 'gtf',
  bed: 'bed',
  json: 'json',
  txt: 'txt',
  text: 'txt',
  xml: 'xml',
  html: 'html',
  htm: 'html',
  nex: 'nexus',
  nexus: 'nexus',
  nxs: 'nexus',
  nwk: 'newick',
  newick: 'newick',
  tre: 'newick',
  phy: 'phylip',
  phylip: 'phylip',
  gb: 'genbank',
  gbk: 'genbank',
  genbank: 'genbank',
  embl: 'embl',
  aln: 'clustalw',
  sto: 'stockholm',
  stk: 'stockholm',
  msf: 'msf',
  ace: 'ace',
  sh: 'sh',
  bash: 'bash',
  csh: 'csh',
  tcsh: 'tcsh',
  ksh: 'ksh',
  zsh: 'zsh',
  py: 'python',
  pl: 'perl',
  rdf: 'rdf',
};

/**
 * Media types for bioinformatics formats that the general table gets wrong or lacks
 * (`.vcf` is a vCard there; FASTA/FASTQ are unknown).
 */
const contentTypeByExtension: Record<string, string> = {
  vcf: 'text/plain',
  fa: 'text/plain',
  fas: 'text/plain',
  fasta: 'text/plain',
  fna: 'text/plain',
  ffn: 'text/plain',
  faa: 'text/plain',
  frn: 'text/plain',
  fq: 'text/plain',
  fastq: 'text/plain',
  sam: 'text/plain',
  gff: 'text/plain',
  gff3: 'text/plain',
  gtf: 'text/plain',
  bed: 'text/plain',
  nex: 'text/plain',
  nexus: 'text/plain',
  nwk: 'text/plain',
  newick: 'text/plain',
  phy: 'text/plain',
  phylip: 'text/plain',
  gb: 'text/plain',
  gbk: 'text/plain',
  embl: 'text/plain',
  aln: 'text/plain',
  bam: genericContentType,
};

function extensionOf(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot > 0 && dot < name.length - 1 ? name.slice(dot + 1).toLowerCase() : undefined;
}

export function infoTypeFromName(name: string): string {
  const extension = extensionOf(name);
  return (extension && infoTypeByExtension[extension]) || '';
}

/** The media type the name implies, or `application/octet-stream` when it implies none. */
export function contentTypeFromName(name: string): string {
  const extension = extensionOf(name);
  if (extension && contentTypeByExtension[extension]) return contentTypeByExtension[extension];
  return mime.lookup(name) || genericContentType;
}

/** How many leading bytes `sniffContentType` looks at. */
export const SNIFF_BYTES = 4096;

/**
 * Refines a generic media type from the first bytes: text without NULs that decodes as UTF-8 is
 * `text/plain`; anything else stays generic. A multi-byte character cut by the sample's end is not
 * held against it.
 */
export function sniffContentType(fromName: string, head: Buffer): string {
  if (fromName !== genericContentType || head.length === 0) return fromName;
  if (head.includes(0)) return fromName;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(trimPartialUtf8(head));
    return 'text/plain';
  } catch {
    return fromName;
  }
}

/** Drops an incomplete UTF-8 sequence at the end of a sample. */
function trimPartialUtf8(bytes: Buffer): Buffer {
  let end = bytes.length;
  // Walk back over at most 3 continuation bytes to the start of the last character.
  let back = 0;
  while (back < 3 && end - back - 1 >= 0 && (bytes[end - back - 1]! & 0xc0) === 0x80) back++;
  const leadIndex = end - back - 1;
  if (leadIndex < 0) return bytes;
  const lead = bytes[leadIndex]!;
  const needed = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  if (needed > back + 1) end = leadIndex;
  return bytes.subarray(0, end);
}
