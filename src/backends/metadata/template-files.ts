import { crc32, deflateRawSync } from 'node:zlib';
import type { Template } from './template-model.ts';

/**
 * The downloadable forms of a template (backends.md §3.5): a blank CSV to fill in for bulk
 * metadata (one column per top-level attribute after "file name or path"), a guide describing
 * each column, and a zip holding both under a folder named after the template.
 */

/** RFC 4180: a field with a comma, quote or line break is quoted, its quotes doubled; lines end in CRLF. */
function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function csv(rows: string[][]): string {
  return rows.map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n';
}

export function blankCsv(template: Template): string {
  return csv([['file name or path', ...template.attributes.map((attribute) => attribute.name)]]);
}

export function guideCsv(template: Template): string {
  return csv([
    [
      'attribute name',
      'attribute description',
      "required (If you cannot provide, enter 'not collected', 'not applicable' or 'missing'.)",
      'value type definition',
      'enum value options (you must enter one of these values)',
    ],
    ...template.attributes.map((attribute) => [
      attribute.name,
      attribute.description,
      String(attribute.required),
      attribute.type,
      (attribute.values ?? []).map((value) => value.value).join(', '),
    ]),
  ]);
}

/** A name usable as a folder in a zip on every system: no separators, controls or reserved characters. */
export function zipFolderName(name: string): string {
  const cleaned = name.replace(/[\x00-\x1f\x7f/\\:*?"<>|]/g, '_').replace(/^[.\s]+|[.\s]+$/g, '');
  return cleaned === '' ? 'template' : cleaned;
}

/** MS-DOS date and time fields of a zip entry. */
function dosTime(date: Date): { time: number; date: number } {
  return {
    time: (date.getHours() << 11) | (date.getMinutes() << 5) | Math.floor(date.getSeconds() / 2),
    date:
      ((Math.max(date.getFullYear(), 1980) - 1980) << 9) |
      ((date.getMonth() + 1) << 5) |
      date.getDate(),
  };
}

/** A zip archive of deflated entries (names UTF-8, flag bit 11), built in memory: templates are small. */
export function zip(entries: { name: string; content: string }[], now = new Date()): Buffer {
  const { time, date } = dosTime(now);
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const raw = Buffer.from(entry.content, 'utf8');
    const packed = deflateRawSync(raw);
    const crc = crc32(raw);
    // What a local header (from byte 4) and its central directory entry (from byte 6) both say.
    const fields = Buffer.alloc(24);
    fields.writeUInt16LE(20, 0); // version needed: 2.0 (deflate)
    fields.writeUInt16LE(0x0800, 2); // UTF-8 names
    fields.writeUInt16LE(8, 4); // deflate
    fields.writeUInt16LE(time, 6);
    fields.writeUInt16LE(date, 8);
    fields.writeUInt32LE(crc, 10);
    fields.writeUInt32LE(packed.length, 14);
    fields.writeUInt32LE(raw.length, 18);
    fields.writeUInt16LE(name.length, 22);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    fields.copy(local, 4);
    // extra length: zero
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4); // made by
    fields.copy(central, 6);
    // extra length, comment length, disk number, internal and external attributes: zero
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, packed);
    centrals.push(central, name);
    offset += local.length + name.length + packed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

export function templateZip(template: Template): Buffer {
  const folder = zipFolderName(template.name);
  return zip([
    { name: `${folder}/blank.csv`, content: blankCsv(template) },
    { name: `${folder}/guide.csv`, content: guideCsv(template) },
  ]);
}
