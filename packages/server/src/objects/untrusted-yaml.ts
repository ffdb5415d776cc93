/**
 * YAML that comes from outside (a server-side apply body, a plugin archive's `plugin.yaml` and `extensions/`), read
 * so that no input of at most the size limit holds the event loop for long. The `yaml` package's one-call parse is
 * not safe for that: its duplicate-key check is quadratic (20,000 keys held the loop for seconds) and deep nesting is
 * costly. So the stages run here one by one: the lexer's tokens are checked as they come (no anchors, aliases,
 * directives or tags beyond the core schema's) and the parser's stack bounds the nesting while it builds, both in
 * slices between which the loop turns; each document is then composed without the library's key check, and converted
 * to plain data with a linear one.
 */
import { badRequest, payloadTooLarge } from '@svc/plugin-api';
import { Composer, CST, type Document, isMap, isPair, isScalar, isSeq, Lexer, Parser } from 'yaml';
import { Turns } from '../util/turns.js';
import { MAX_JSON_DEPTH } from './json-limits.js';

/**
 * The largest YAML text read. Long scalars cost little (a 256 KiB block scalar composes in about 20 ms); dense
 * documents are bounded by MAX_YAML_TOKENS instead.
 */
export const MAX_YAML_BYTES = 256 * 1024;

/**
 * The most tokens one document may hold, whitespace and comments not counted (a `key: value` line is three).
 * Composing a document is the one step that cannot be sliced; it costs up to about 1.7 µs a token here on the
 * costliest shapes, so this many keep it under 20 ms (docs/performance.md "Stalls", `npm run bench:stall`).
 */
export const MAX_YAML_TOKENS = 10_000;

/** Tags a document may carry: the YAML 1.2 core schema's own (`!!str 1.0` keeps a version a string). */
const CORE_TAGS = new Set(['!!str', '!!int', '!!float', '!!bool', '!!null', '!!map', '!!seq']);

/** The parser's stack holds one of these per level of nesting being built (and the document, and a scalar). */
const COLLECTIONS = new Set(['block-map', 'block-seq', 'flow-collection']);
/** Tokens that cost next to nothing to compose: whitespace, comments and the lexer's own control marks. */
const UNCOUNTED = new Set<CST.TokenType | null>([
  'space',
  'newline',
  'comment',
  'byte-order-mark',
  'doc-mode',
  'flow-error-end',
]);
/** How often (in tokens) the lexing loop asks whether its slice of the event loop has run out. */
const TOKENS_PER_CHECK = 512;

export interface YamlReadOptions {
  /** What is read, starting each message: `the apply configuration`, `extensions/roles.yaml`; none: the position. */
  what?: string;
  /** Largest text in bytes (default MAX_YAML_BYTES); over it is a 413. */
  maxBytes?: number;
  /** Most documents the text may hold (default no limit). */
  maxDocuments?: number;
}

/**
 * Every document of `text` as plain data (objects, arrays, strings, numbers, booleans, null), in order; an empty
 * document is null. Refusals are ApiErrors naming what was wrong and where: 413 over the size limit, 400 otherwise.
 */
export async function readYamlDocuments(text: string, options: YamlReadOptions): Promise<unknown[]> {
  const what = options.what;
  const maxBytes = options.maxBytes ?? MAX_YAML_BYTES;
  const maxDocuments = options.maxDocuments ?? Number.POSITIVE_INFINITY;
  // Bytes of UTF-8 are at least as many as UTF-16 code units, so a short text needs no count.
  if (text.length > maxBytes || Buffer.byteLength(text) > maxBytes) {
    throw payloadTooLarge(`${what ?? 'the text'} is larger than the ${maxBytes / 1024} KiB accepted as YAML`);
  }
  const at = (offset: number) => (what ? `${what}, ` : '') + lineAndColumn(text, offset);
  const parser = new Parser();
  const composer = new Composer({ uniqueKeys: false, version: '1.2', schema: 'core', merge: false });
  const turns = new Turns(5);
  const documents: unknown[] = [];
  let inDocument = 0;
  const add = (document: Document.Parsed) => {
    documents.push(toPlainData(document, at));
    if (documents.length > maxDocuments) {
      const most = maxDocuments === 1 ? 'one YAML document' : `at most ${maxDocuments} YAML documents`;
      throw badRequest(`${what ?? 'the text'} must be ${most}`);
    }
  };
  const compose = async (token: CST.Token) => {
    // The first syntax error is the answer: going on would only collect more of them, at a cost.
    if (token.type === 'error') throw badRequest(`${at(token.offset)}: not valid YAML: ${token.message}`);
    for (const document of composer.next(token)) add(document);
    inDocument = 0;
    await turns.take();
  };
  let count = 0;
  let scalarText = false;
  for (const source of new Lexer().lex(text)) {
    const offset = parser.offset;
    // The lexer marks a scalar with a control token, then gives its text, which is not classified (it may start
    // with any character, in a block scalar); the text counts as one token.
    const type = scalarText ? 'scalar' : CST.tokenType(source);
    scalarText = !scalarText && source === CST.SCALAR;
    if (!scalarText && !UNCOUNTED.has(type)) {
      refuseToken(type, source, () => at(offset));
      if (++inDocument > MAX_YAML_TOKENS) {
        throw badRequest(
          `${at(offset)}: a document of more than ${MAX_YAML_TOKENS} tokens (keys, values and marks) is not accepted`,
        );
      }
    }
    for (const token of parser.next(source)) await compose(token);
    if (parser.stack.length > MAX_JSON_DEPTH && nesting(parser.stack) > MAX_JSON_DEPTH) {
      throw badRequest(`${at(offset)}: nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    if (++count % TOKENS_PER_CHECK === 0) await turns.take();
  }
  for (const token of parser.end()) await compose(token);
  for (const document of composer.end()) add(document);
  // Errors outside any document (a stray `]`) are not on a document.
  const stray = composer.streamInfo().errors[0];
  if (stray) throw badRequest(`${at(stray.pos[0])}: not valid YAML: ${stray.message.split('\n')[0]}`);
  return documents;
}

/** The one document of `text` as plain data (null when it is empty); more than one is a 400. */
export async function readYamlDocument(text: string, options: YamlReadOptions): Promise<unknown> {
  return (await readYamlDocuments(text, { ...options, maxDocuments: 1 }))[0] ?? null;
}

/** Levels of collections open on the parser's stack (counted only when the stack is deep at all). */
function nesting(stack: readonly CST.Token[]): number {
  return stack.reduce((levels, token) => levels + (COLLECTIONS.has(token.type) ? 1 : 0), 0);
}

/** Refuses what plain data has no use for and what would make a small text expensive. */
function refuseToken(type: CST.TokenType | null, source: string, where: () => string): void {
  if (type === 'anchor' || type === 'alias') {
    throw badRequest(`${where()}: anchors and aliases (${source}) are not accepted; write the value out`);
  }
  if (type === 'directive-line') throw badRequest(`${where()}: directives (${source.trim()}) are not accepted`);
  if (type === 'tag' && !CORE_TAGS.has(source)) {
    throw badRequest(`${where()}: the tag ${source} is not accepted (only ${[...CORE_TAGS].join(', ')})`);
  }
}

type At = (offset: number) => string;

/**
 * A composed document as plain data, as the `yaml` package's own conversion makes it (scalar keys as strings, a null
 * key as ''), except that a key given twice is an error, found with the object's own keys (linear).
 */
function toPlainData(document: Document.Parsed, at: At): unknown {
  const error = document.errors[0];
  if (error) throw badRequest(`${at(error.pos[0])}: not valid YAML: ${error.message.split('\n')[0]}`);
  return plain(document.contents, at);
}

function plain(node: unknown, at: At): unknown {
  if (node === null || node === undefined) return null;
  if (isScalar(node)) return node.value;
  if (isSeq(node)) return node.items.map((item) => plain(item, at));
  if (isMap(node)) {
    const object: Record<string, unknown> = {};
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = pair.key;
      if (key !== null && !isScalar(key)) {
        throw badRequest(`${at(offsetOf(key))}: a mapping key must be a scalar (a string or number)`);
      }
      const name = key === null || key.value === null ? '' : String(key.value);
      if (Object.hasOwn(object, name)) {
        throw badRequest(`${at(offsetOf(key))}: the key ${JSON.stringify(name)} is given more than once`);
      }
      const value = plain(pair.value, at);
      // `__proto__` becomes an own property, not the prototype (and the JSON parser refuses it after).
      if (name === '__proto__') Object.defineProperty(object, name, { value, writable: true, enumerable: true });
      else object[name] = value;
    }
    return object;
  }
  // Aliases are refused while lexing; nothing else is left.
  throw badRequest(`${at(offsetOf(node))}: a node of an unexpected kind`);
}

function offsetOf(node: unknown): number {
  return (node as { range?: [number, number, number] } | null)?.range?.[0] ?? 0;
}

/** `line L, column C` of a character offset (1-based, as editors count). */
export function lineAndColumn(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return `line ${line}, column ${offset - lineStart + 1}`;
}
