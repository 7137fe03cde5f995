// The DataCite 4 XML submitted when a permanent identifier is minted (routes.md §14), built from
// the folder's AVUs (the seeded "DataCite 4 citation" template's attribute names) with fallbacks
// for the mandatory properties: title = the folder's name, creator = the requester, publisher =
// PID_PUBLISHER, publicationYear = this year, resourceType = Dataset.

/** An AVU as the metadata service answers it (backends.md §3.3), nested AVUs included. */
export interface Avu {
  attr: string;
  value: string;
  unit?: string;
  avus?: Avu[];
}

export interface CitationInput {
  identifier: string;
  identifierType: 'DOI' | 'ARK';
  avus: Avu[];
  folderName: string;
  requester: string;
  publisher: string;
  year: number;
}

const escape = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[char]!,
  );

/** The non-empty values of the top-level AVUs named `attr` (any letter case). */
function values(avus: Avu[], attr: string): string[] {
  return avus
    .filter((avu) => avu.attr.toLowerCase() === attr.toLowerCase() && avu.value.trim() !== '')
    .map((avu) => avu.value.trim());
}

/** Creators: `creator` groupings (creatorName / creatorAffiliation inside), else flat `creatorName` AVUs. */
function creators(avus: Avu[], fallback: string): Array<{ name: string; affiliation?: string }> {
  const grouped = avus
    .filter((avu) => avu.attr.toLowerCase() === 'creator')
    .map((avu) => {
      const inner = avu.avus ?? [];
      const name = values(inner, 'creatorName')[0] ?? (avu.value.trim() || undefined);
      const affiliation = values(inner, 'creatorAffiliation')[0];
      return name === undefined ? undefined : { name, ...(affiliation ? { affiliation } : {}) };
    })
    .filter((creator): creator is { name: string; affiliation?: string } => creator !== undefined);
  if (grouped.length > 0) return grouped;
  const flat = values(avus, 'creatorName').map((name) => ({ name }));
  return flat.length > 0 ? flat : [{ name: fallback }];
}

export function dataCiteXml(input: CitationInput): string {
  const { avus } = input;
  const title = values(avus, 'title')[0] ?? input.folderName;
  const publisher = values(avus, 'publisher')[0] ?? input.publisher;
  const year =
    values(avus, 'publicationYear').find((value) => /^\d{4}$/.test(value)) ?? String(input.year);
  const general = values(avus, 'resourceTypeGeneral')[0] ?? 'Dataset';
  const resourceType = values(avus, 'resourceType')[0] ?? general;
  const subjects = values(avus, 'subject');
  const descriptions = values(avus, 'description');
  const rights = values(avus, 'rights')[0];
  const language = values(avus, 'language')[0];
  const version = values(avus, 'version')[0];
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<resource xmlns="http://datacite.org/schema/kernel-4" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:schemaLocation="http://datacite.org/schema/kernel-4 http://schema.datacite.org/meta/kernel-4/metadata.xsd">',
    `  <identifier identifierType="${input.identifierType}">${escape(input.identifier)}</identifier>`,
    '  <creators>',
    ...creators(avus, input.requester).map(
      (creator) =>
        `    <creator><creatorName>${escape(creator.name)}</creatorName>${creator.affiliation ? `<affiliation>${escape(creator.affiliation)}</affiliation>` : ''}</creator>`,
    ),
    '  </creators>',
    `  <titles><title>${escape(title)}</title></titles>`,
    `  <publisher>${escape(publisher)}</publisher>`,
    `  <publicationYear>${year}</publicationYear>`,
    `  <resourceType resourceTypeGeneral="${escape(general)}">${escape(resourceType)}</resourceType>`,
  ];
  if (subjects.length > 0)
    lines.push(
      `  <subjects>${subjects.map((subject) => `<subject>${escape(subject)}</subject>`).join('')}</subjects>`,
    );
  if (language) lines.push(`  <language>${escape(language)}</language>`);
  if (version) lines.push(`  <version>${escape(version)}</version>`);
  if (rights) lines.push(`  <rightsList><rights>${escape(rights)}</rights></rightsList>`);
  if (descriptions.length > 0) {
    lines.push(
      `  <descriptions>${descriptions.map((text) => `<description descriptionType="Abstract">${escape(text)}</description>`).join('')}</descriptions>`,
    );
  }
  lines.push('</resource>', '');
  return lines.join('\n');
}

/** The publication year the identifier's metadata names (what the `publicationYear` AVU records). */
export function publicationYear(avus: Avu[], fallback: number): string {
  return values(avus, 'publicationYear').find((value) => /^\d{4}$/.test(value)) ?? String(fallback);
}
