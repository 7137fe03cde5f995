// An OAI-ORE resource map in RDF/XML (https://www.openarchives.org/ore/1.0/rdfxml): the map
// describes an aggregation (the exported file or folder) that aggregates files. Entries are named
// by `urn:uuid:` URIs, which stay true when a file is moved or renamed. AVUs whose attribute is a
// Dublin Core term (or one of the DataCite names of the seeded citation template) become
// properties of the aggregation; other AVUs have no agreed RDF term and are left out.

interface OreAvu {
  attr: string;
  value: string;
  avus?: OreAvu[];
}

/** Attribute name (case-insensitive, a `datacite.` style prefix ignored) → DC terms property. */
const dcTerms: Record<string, string> = {
  title: 'title',
  creator: 'creator',
  creatorname: 'creator',
  contributor: 'contributor',
  contributorname: 'contributor',
  subject: 'subject',
  description: 'description',
  publisher: 'publisher',
  publicationyear: 'issued',
  date: 'date',
  identifier: 'identifier',
  language: 'language',
  format: 'format',
  rights: 'rights',
  rightsuri: 'license',
  resourcetype: 'type',
  version: 'hasVersion',
  abstract: 'abstract',
  license: 'license',
};

const xmlText = (text: string) =>
  text
    .replace(
      /[&<>"']/g,
      (character) =>
        ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[character]!,
    )
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');

function termOf(attr: string): string | undefined {
  const name = attr.toLowerCase();
  return dcTerms[name] ?? dcTerms[name.slice(name.lastIndexOf('.') + 1)];
}

/** DC properties from AVUs; a grouping AVU (a creator with a nested creatorName) gives its nested values. */
function properties(avus: OreAvu[]): string[] {
  const lines: string[] = [];
  for (const avu of avus) {
    const term = termOf(avu.attr);
    const nested = avu.avus ?? [];
    const nestedSame = nested.filter((child) => termOf(child.attr) === term);
    if (term && avu.value.trim() !== '' && nestedSame.length === 0)
      lines.push(`    <dcterms:${term}>${xmlText(avu.value)}</dcterms:${term}>`);
    lines.push(...properties(nested));
  }
  return lines;
}

const uri = (id: string) => `urn:uuid:${id}`;

export function oreDocument(
  entry: { id: string; path: string; avus: OreAvu[] },
  files: { id: string; path: string }[],
): string {
  const aggregation = `${uri(entry.id)}#aggregation`;
  const map = `${uri(entry.id)}#resource-map`;
  const name = entry.path.slice(entry.path.lastIndexOf('/') + 1);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ore="http://www.openarchives.org/ore/terms/" xmlns:dcterms="http://purl.org/dc/terms/">',
    `  <rdf:Description rdf:about="${xmlText(map)}">`,
    '    <rdf:type rdf:resource="http://www.openarchives.org/ore/terms/ResourceMap"/>',
    `    <ore:describes rdf:resource="${xmlText(aggregation)}"/>`,
    `    <dcterms:modified>${new Date().toISOString()}</dcterms:modified>`,
    '  </rdf:Description>',
    `  <rdf:Description rdf:about="${xmlText(aggregation)}">`,
    '    <rdf:type rdf:resource="http://www.openarchives.org/ore/terms/Aggregation"/>',
    `    <ore:isDescribedBy rdf:resource="${xmlText(map)}"/>`,
    ...(properties(entry.avus).some((line) => line.includes('<dcterms:title>'))
      ? []
      : [`    <dcterms:title>${xmlText(name)}</dcterms:title>`]),
    ...properties(entry.avus),
    ...files.map((file) => `    <ore:aggregates rdf:resource="${xmlText(uri(file.id))}"/>`),
    '  </rdf:Description>',
    ...files.flatMap((file) => [
      `  <rdf:Description rdf:about="${xmlText(uri(file.id))}">`,
      `    <ore:isAggregatedBy rdf:resource="${xmlText(aggregation)}"/>`,
      `    <dcterms:title>${xmlText(file.path.slice(file.path.lastIndexOf('/') + 1))}</dcterms:title>`,
      '  </rdf:Description>',
    ]),
    '</rdf:RDF>',
    '',
  ];
  return lines.join('\n');
}
