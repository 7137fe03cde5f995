/** Why a file is not a FASTA file the genome service can load. */
export class FastaError extends Error {
  override readonly name = 'FastaError';
}

export interface FastaCounts {
  sequences: number;
  /** Sequence letters (bases or residues), all records together. */
  length: number;
}

const NEWLINE = 0x0a;
const HEADER = 0x3e; // >
const COMMENT = 0x3b; // ;

/** Bytes a sequence line may hold: letters (IUPAC codes), `*` (stop) and `-` (gap). */
function isSequenceLetter(byte: number): boolean {
  return (
    (byte >= 0x41 && byte <= 0x5a) ||
    (byte >= 0x61 && byte <= 0x7a) ||
    byte === 0x2a ||
    byte === 0x2d
  );
}

/** Space, tab and carriage return are tolerated in sequence lines (and not counted). */
function isBlank(byte: number): boolean {
  return byte === 0x20 || byte === 0x09 || byte === 0x0d;
}

function shown(byte: number): string {
  return byte >= 0x20 && byte < 0x7f
    ? `"${String.fromCharCode(byte)}"`
    : `byte 0x${byte.toString(16).padStart(2, '0')}`;
}

/**
 * Reads a FASTA file as it streams past and counts its records and letters: records start with a
 * `>` header line, followed by sequence lines; `;` lines are comments and empty lines are allowed.
 * Anything else (text before the first header, a header with no sequence, a byte that is not a
 * sequence letter, a NUL in a header) is refused with the line it was found on.
 */
export class FastaCounter {
  private sequences = 0;
  private length = 0;
  private lettersInRecord = 0;
  private line = 1;
  private atLineStart = true;
  private lineKind: 'header' | 'comment' | 'sequence' = 'sequence';

  push(chunk: Buffer): void {
    for (const byte of chunk) {
      if (byte === NEWLINE) {
        this.line += 1;
        this.atLineStart = true;
        continue;
      }
      if (this.atLineStart) {
        this.atLineStart = false;
        if (byte === HEADER) {
          this.endRecord();
          this.sequences += 1;
          this.lettersInRecord = 0;
          this.lineKind = 'header';
          continue;
        }
        this.lineKind = byte === COMMENT ? 'comment' : 'sequence';
        if (this.lineKind === 'comment') continue;
      }
      if (this.lineKind === 'header' || this.lineKind === 'comment') {
        if (byte === 0)
          throw new FastaError(`line ${this.line} holds a NUL byte: this is not a text file`);
        continue;
      }
      if (isBlank(byte)) continue;
      if (!isSequenceLetter(byte))
        throw new FastaError(`line ${this.line}: ${shown(byte)} is not a sequence letter`);
      if (this.sequences === 0)
        throw new FastaError(`line ${this.line}: sequence letters before the first ">" header`);
      this.lettersInRecord += 1;
      this.length += 1;
    }
  }

  /** The counts, once the whole file has been pushed. */
  finish(): FastaCounts {
    if (this.sequences === 0) throw new FastaError('no ">" header: this is not a FASTA file');
    this.endRecord();
    return { sequences: this.sequences, length: this.length };
  }

  private endRecord(): void {
    if (this.sequences > 0 && this.lettersInRecord === 0) {
      throw new FastaError(
        `sequence ${this.sequences} (before line ${this.line}) has no sequence letters`,
      );
    }
  }
}
