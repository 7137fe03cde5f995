import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { gatewayError } from '../../common/errors.ts';

/**
 * Reads an OWL ontology in RDF/XML (the format the reference's OWL API loader is fed, e.g. EDAM)
 * into what categorisation needs: the ontology's IRI and version, its named classes with label
 * and description, and the named subclass edges between them. fast-xml-parser does the XML
 * (well-formedness, DOCTYPE entities with expansion limits); this module resolves namespaces and
 * reads the RDF/XML node/property striping, enough of RDF/XML for class hierarchies.
 */

const RDF = 'http://www.w3.org/1999/02/22-rdf-syntax-ns#';
const RDFS = 'http://www.w3.org/2000/01/rdf-schema#';
const OWL = 'http://www.w3.org/2002/07/owl#';
const XML_NS = 'http://www.w3.org/XML/1998/namespace';
const TYPE = `${RDF}type`;
const SUBCLASS_OF = `${RDFS}subClassOf`;
/** Descriptions: the reference reads oboInOwl:hasDefinition; SKOS and rdfs:comment are fallbacks. */
const DESCRIPTION_PROPERTIES = [
  'http://www.geneontology.org/formats/oboInOwl#hasDefinition',
  'http://www.w3.org/2004/02/skos/core#definition',
  `${RDFS}comment`,
];
const VERSION_PROPERTIES = [
  `${OWL}versionIRI`,
  `${OWL}versionInfo`,
  'http://usefulinc.com/ns/doap#Version',
];
const CLASS_TYPES = new Set([`${OWL}Class`, `${RDFS}Class`]);
const SYNTAX_ATTRIBUTES = new Set(
  ['about', 'ID', 'nodeID', 'resource', 'parseType', 'datatype'].map((name) => RDF + name),
);

export interface OntologyClass {
  iri: string;
  label: string | null;
  description: string | null;
}

export interface ParsedOntology {
  iri: string;
  /** owl:versionIRI, owl:versionInfo or doap:Version, when the document has one. */
  version: string | null;
  classes: OntologyClass[];
  edges: { class_iri: string; subclass_iri: string }[];
}

interface XmlElement {
  name: string;
  attributes: Map<string, string>;
  children: XmlElement[];
  text: string;
}

interface Triple {
  subject: string;
  predicate: string;
  object: string;
  literal: boolean;
  lang: string;
}

const badDocument = (reason: string, extra: Record<string, unknown> = {}) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field: 'ontology-xml', ...extra });

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Ontology tools declare namespace entities and use them in every IRI; the limits still stop entity bombs.
  processEntities: {
    enabled: true,
    maxTotalExpansions: 1_000_000,
    maxExpandedLength: 64 * 1024 * 1024,
  },
  maxNestedTags: 200,
});

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, string> };

/** fast-xml-parser's ordered output, with every element and attribute name expanded to namespace + local name. */
function toElements(
  nodes: OrderedNode[],
  scope: Map<string, string>,
): { elements: XmlElement[]; text: string } {
  const elements: XmlElement[] = [];
  let text = '';
  for (const node of nodes) {
    if ('#text' in node) {
      text += String(node['#text']);
      continue;
    }
    const tag = Object.keys(node).find((key) => key !== ':@');
    if (tag === undefined || tag.startsWith('#') || tag.startsWith('?')) continue;
    const raw = node[':@'] ?? {};
    const inner = new Map(scope);
    for (const [name, value] of Object.entries(raw)) {
      if (name === 'xmlns') inner.set('', value);
      else if (name.startsWith('xmlns:')) inner.set(name.slice(6), value);
    }
    const expand = (qualified: string, isAttribute: boolean): string => {
      const colon = qualified.indexOf(':');
      const prefix = colon === -1 ? '' : qualified.slice(0, colon);
      const local = colon === -1 ? qualified : qualified.slice(colon + 1);
      if (prefix === '' && isAttribute) return local;
      if (prefix === 'xml') return XML_NS + local;
      const namespace = inner.get(prefix) ?? (prefix === '' ? '' : undefined);
      if (namespace === undefined)
        throw badDocument(`the namespace prefix "${prefix}" of <${qualified}> is not declared`);
      return namespace + local;
    };
    const attributes = new Map<string, string>();
    for (const [name, value] of Object.entries(raw)) {
      if (name !== 'xmlns' && !name.startsWith('xmlns:'))
        attributes.set(expand(name, true), String(value));
    }
    const content = toElements((node[tag] as OrderedNode[]) ?? [], inner);
    elements.push({
      name: expand(tag, false),
      attributes,
      children: content.elements,
      text: content.text,
    });
  }
  return { elements, text };
}

const isAbsolute = (reference: string) => /^[a-z][a-z0-9+.-]*:/i.test(reference);

/** An IRI reference against the base in effect; absolute IRIs are kept byte for byte (they are compared literally). */
function resolve(reference: string, base: string | undefined): string {
  if (isAbsolute(reference) || base === undefined) return reference;
  try {
    return new URL(reference, base).href;
  } catch {
    return reference;
  }
}

/** The RDF statements of an rdf:RDF element (node elements, property elements and property attributes). */
function triplesOf(root: XmlElement): Triple[] {
  const triples: Triple[] = [];
  let blanks = 0;
  const baseOf = (element: XmlElement, base: string | undefined) => {
    const declared = element.attributes.get(`${XML_NS}base`);
    return declared === undefined ? base : resolve(declared, base);
  };
  const langOf = (element: XmlElement, lang: string) =>
    element.attributes.get(`${XML_NS}lang`) ?? lang;
  const add = (subject: string, predicate: string, object: string, literal = false, lang = '') =>
    triples.push({ subject, predicate, object, literal, lang });

  const node = (
    element: XmlElement,
    inheritedBase: string | undefined,
    inheritedLang: string,
  ): string => {
    const base = baseOf(element, inheritedBase);
    const lang = langOf(element, inheritedLang);
    const about = element.attributes.get(`${RDF}about`);
    const id = element.attributes.get(`${RDF}ID`);
    const nodeId = element.attributes.get(`${RDF}nodeID`);
    const subject =
      about !== undefined
        ? resolve(about, base)
        : id !== undefined
          ? `${(base ?? '').replace(/#.*$/, '')}#${id}`
          : nodeId !== undefined
            ? `_:${nodeId}`
            : `_:b${(blanks += 1)}`;
    if (element.name !== `${RDF}Description`) add(subject, TYPE, element.name);
    for (const [name, value] of element.attributes) {
      if (SYNTAX_ATTRIBUTES.has(name) || name.startsWith(XML_NS) || !name.includes(':')) continue;
      if (name === TYPE) add(subject, TYPE, resolve(value, base));
      else add(subject, name, value, true, lang);
    }
    for (const child of element.children) property(subject, child, base, lang);
    return subject;
  };

  const property = (
    subject: string,
    element: XmlElement,
    inheritedBase: string | undefined,
    inheritedLang: string,
  ) => {
    const base = baseOf(element, inheritedBase);
    const lang = langOf(element, inheritedLang);
    const resource = element.attributes.get(`${RDF}resource`);
    const nodeId = element.attributes.get(`${RDF}nodeID`);
    const parseType = element.attributes.get(`${RDF}parseType`);
    if (resource !== undefined) add(subject, element.name, resolve(resource, base));
    else if (nodeId !== undefined) add(subject, element.name, `_:${nodeId}`);
    else if (parseType === 'Resource')
      add(
        subject,
        element.name,
        node({ ...element, name: `${RDF}Description`, attributes: new Map() }, base, lang),
      );
    else if (parseType === 'Collection' || parseType === 'Literal') return;
    else if (element.children.length > 0)
      add(subject, element.name, node(element.children[0]!, base, lang));
    else add(subject, element.name, element.text, true, lang);
  };

  const base = baseOf(root, undefined);
  const lang = langOf(root, '');
  for (const child of root.children) node(child, base, lang);
  return triples;
}

/** The literal to show: untagged or English first, else the first one. */
function preferredLiteral(triples: Triple[]): string | null {
  const literals = triples.filter((triple) => triple.literal && triple.object.trim() !== '');
  const chosen =
    literals.find((triple) => triple.lang === '' || triple.lang.toLowerCase().startsWith('en')) ??
    literals[0];
  return chosen ? chosen.object.trim() : null;
}

/**
 * Parses an ontology document. Malformed XML and documents that are not an RDF/XML OWL ontology
 * are 400 ERR_BAD_OR_MISSING_FIELD (field `ontology-xml`), with the line and column when known.
 */
export function parseOntologyXml(xml: string): ParsedOntology {
  if (xml.trim() === '') throw badDocument('the ontology document is empty');
  const validity = XMLValidator.validate(xml);
  if (validity !== true) {
    throw badDocument(`the ontology document is not well-formed XML: ${validity.err.msg}`, {
      line: validity.err.line,
      column: validity.err.col,
    });
  }
  let ordered: OrderedNode[];
  try {
    ordered = parser.parse(xml) as OrderedNode[];
  } catch (error) {
    throw badDocument(`the ontology document could not be read: ${(error as Error).message}`);
  }
  const { elements } = toElements(ordered, new Map());
  const root = elements[0];
  if (!root || root.name !== `${RDF}RDF`) {
    throw badDocument(
      'the document is not an RDF/XML ontology: its root element must be rdf:RDF (OWL/XML and other syntaxes are not read)',
    );
  }
  const triples = triplesOf(root);
  const bySubject = new Map<string, Triple[]>();
  for (const triple of triples) {
    const list = bySubject.get(triple.subject) ?? [];
    list.push(triple);
    bySubject.set(triple.subject, list);
  }
  const isNamed = (iri: string) => !iri.startsWith('_:');
  const ontologyIri = triples.find(
    (triple) =>
      triple.predicate === TYPE && triple.object === `${OWL}Ontology` && isNamed(triple.subject),
  )?.subject;
  if (ontologyIri === undefined)
    throw badDocument('the document is RDF but not an OWL ontology: it has no named owl:Ontology');

  const about = (subject: string, predicate: string) =>
    (bySubject.get(subject) ?? []).filter((triple) => triple.predicate === predicate);
  const version =
    VERSION_PROPERTIES.map((predicate) => about(ontologyIri, predicate)[0]?.object).find(
      (value) => value !== undefined && value.trim() !== '',
    ) ?? null;

  const edges = new Map<string, { class_iri: string; subclass_iri: string }>();
  const classIris = new Set<string>();
  for (const triple of triples) {
    if (triple.predicate === TYPE && CLASS_TYPES.has(triple.object) && isNamed(triple.subject))
      classIris.add(triple.subject);
    if (
      triple.predicate === SUBCLASS_OF &&
      !triple.literal &&
      isNamed(triple.subject) &&
      isNamed(triple.object) &&
      triple.subject !== triple.object &&
      triple.object !== `${OWL}Thing`
    ) {
      classIris.add(triple.subject);
      classIris.add(triple.object);
      edges.set(`${triple.object}\n${triple.subject}`, {
        class_iri: triple.object,
        subclass_iri: triple.subject,
      });
    }
  }
  classIris.delete(`${OWL}Thing`);
  classIris.delete(`${OWL}Nothing`);
  const classes = [...classIris].map((iri) => ({
    iri,
    label: preferredLiteral(about(iri, `${RDFS}label`)),
    description:
      DESCRIPTION_PROPERTIES.map((predicate) => preferredLiteral(about(iri, predicate))).find(
        (value) => value !== null,
      ) ?? null,
  }));
  return { iri: ontologyIri, version, classes, edges: [...edges.values()] };
}
