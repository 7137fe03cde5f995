// A small ontology for the ontology tests, written here as data: the RDF/XML document is made
// from it, and so are the hierarchies the tests expect, so expectations never come from the code
// under test.

export const base = 'http://example.org/onto';
export const iri = (name: string) => `${base}#${name}`;

export interface ClassSpec {
  name: string;
  label: string;
  definition?: string;
  parents: string[];
}

/**
 * Two roots: Topic (two levels of subclasses below it; Bioinformatics sits under both Biology and
 * Computing) and Operation (one level).
 */
export const classes: ClassSpec[] = [
  { name: 'Topic', label: 'Topic', definition: 'A field of study.', parents: [] },
  { name: 'Biology', label: 'Biology', parents: ['Topic'] },
  { name: 'Computing', label: 'Computing', parents: ['Topic'] },
  {
    name: 'Genomics',
    label: 'Genomics',
    definition: 'The study of genomes.',
    parents: ['Biology'],
  },
  { name: 'Proteomics', label: 'Proteomics', parents: ['Biology'] },
  { name: 'Bioinformatics', label: 'Bioinformatics', parents: ['Biology', 'Computing'] },
  { name: 'Operation', label: 'Operation', parents: [] },
  { name: 'Alignment', label: 'Sequence alignment', parents: ['Operation'] },
];

/** The RDF/XML document, in the styles ontology editors write: a DOCTYPE entity, rdf:ID, nested and restriction superclasses. */
export function ontologyXml(options: { version?: string; extraClass?: ClassSpec } = {}): string {
  const all = options.extraClass ? [...classes, options.extraClass] : classes;
  const classXml = all.map((spec, index) => {
    // Alternate the ways a class is named, to read them all alike.
    const subject =
      index % 3 === 1
        ? `rdf:ID="${spec.name}"`
        : index % 3 === 2
          ? `rdf:about="&ex;${spec.name}"`
          : `rdf:about="${iri(spec.name)}"`;
    const parents = spec.parents.map((parent, at) =>
      at === 1
        ? `    <rdfs:subClassOf><owl:Class rdf:about="${iri(parent)}"/></rdfs:subClassOf>`
        : `    <rdfs:subClassOf rdf:resource="${iri(parent)}"/>`,
    );
    return [
      `  <owl:Class ${subject}>`,
      `    <rdfs:label xml:lang="fr">${spec.label} (fr)</rdfs:label>`,
      `    <rdfs:label xml:lang="en">${spec.label}</rdfs:label>`,
      ...(spec.definition
        ? [`    <oboInOwl:hasDefinition>${spec.definition}</oboInOwl:hasDefinition>`]
        : []),
      ...parents,
      '    <rdfs:subClassOf><owl:Restriction><owl:onProperty rdf:resource="http://example.org/onto#has_part"/><owl:someValuesFrom rdf:resource="http://example.org/onto#Thing"/></owl:Restriction></rdfs:subClassOf>',
      '  </owl:Class>',
    ].join('\n');
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<!DOCTYPE rdf:RDF [ <!ENTITY ex "${base}#"> ]>`,
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:rdfs="http://www.w3.org/2000/01/rdf-schema#"',
    `         xmlns:owl="http://www.w3.org/2002/07/owl#" xmlns:oboInOwl="http://www.geneontology.org/formats/oboInOwl#" xml:base="${base}">`,
    `  <owl:Ontology rdf:about="${base}">`,
    ...(options.version ? [`    <owl:versionInfo>${options.version}</owl:versionInfo>`] : []),
    '  </owl:Ontology>',
    ...classXml,
    '</rdf:RDF>',
  ].join('\n');
}

export interface Hierarchy {
  iri: string;
  label: string | null;
  description?: string;
  subclasses?: Hierarchy[];
}

/** The expected tree under `name`, with only the classes `keep` accepts (default: all), subclasses by label. */
export function expectedTree(
  name: string,
  keep: (name: string) => boolean = () => true,
  all: ClassSpec[] = classes,
): Hierarchy | undefined {
  const spec = all.find((item) => item.name === name);
  if (!spec || !keep(name)) return undefined;
  const subclasses = all
    .filter((item) => item.parents.includes(name))
    .map((item) => expectedTree(item.name, keep, all))
    .filter((item): item is Hierarchy => item !== undefined)
    .sort((a, b) => (a.label! < b.label! ? -1 : 1));
  return {
    iri: iri(name),
    label: spec.label,
    ...(spec.definition ? { description: spec.definition } : {}),
    ...(subclasses.length ? { subclasses } : {}),
  };
}

/** The names at or below `name`. */
export function namesUnder(name: string, all: ClassSpec[] = classes): Set<string> {
  const found = new Set([name]);
  for (const item of all)
    if (item.parents.includes(name))
      for (const below of namesUnder(item.name, all)) found.add(below);
  return found;
}

/** The expected tree under `root` cut down to the classes in `attached` and their ancestors. */
export function expectedFiltered(root: string, attached: Set<string>): Hierarchy | undefined {
  return expectedTree(root, (name) => [...namesUnder(name)].some((below) => attached.has(below)));
}

/** A multipart body with the document in part `ontology-xml`, as clients send it. */
export async function multipartXml(
  xml: string,
  field = 'ontology-xml',
): Promise<{ body: Buffer; contentType: string }> {
  const form = new FormData();
  form.append(field, new Blob([xml], { type: 'application/xml' }), 'ontology.owl');
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    body: Buffer.from(await request.arrayBuffer()),
    contentType: request.headers.get('content-type')!,
  };
}
