import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * What a source file spells as wire vocabulary: the `svc.run` names in its literals and the kinds it writes or
 * compares. Read through TypeScript's parser, so comments (which may name anything) never count. Used by
 * vocabulary.test.ts; pure apart from `sourceFilesUnder`.
 */

/** Every `*.svc.run` domain in a text (`api.console.svc.run`, and `svc.run` for `.svc.run` or `https://svc.run/…`). */
export function svcRunDomains(text: string): string[] {
  // A regular expression spells `svc\.run`: read it as the name it matches.
  const plain = text.replace(/\\\./g, '.');
  return [...plain.matchAll(/[A-Za-z0-9.-]*svc\.run(?![A-Za-z0-9])/g)].map((m) => m[0].replace(/^[.-]+/, ''));
}

/** A spelled string, with the kind it is written or compared as when it sits in a `kind` position. */
export interface Spelled {
  text: string;
  asKind: boolean;
}

/** The literals of TypeScript code: strings, template parts and regular expressions, with their kind positions. */
export function literalsOfScript(code: string, fileName = 'file.ts'): Spelled[] {
  const source = ts.createSourceFile(fileName, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Spelled[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node) || ts.isRegularExpressionLiteral(node)) {
      found.push({ text: node.text, asKind: isKindPosition(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const propertyNamed = (node: ts.Node | undefined, name: string) =>
  node !== undefined &&
  (ts.isPropertyAssignment(node) || ts.isPropertySignature(node)) &&
  (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) &&
  node.name.text === name;

/**
 * `kind: 'Role'` (a value or a type), `{ kind: { const: 'Role' } }` (a JSON Schema) and `x.kind === 'Role'`: the
 * places a string is an object's kind.
 */
function isKindPosition(node: ts.Node): boolean {
  let parent = node.parent;
  if (parent && ts.isLiteralTypeNode(parent)) parent = parent.parent;
  if (propertyNamed(parent, 'kind')) return true;
  if (propertyNamed(parent, 'const') && propertyNamed(parent?.parent?.parent, 'kind')) return true;
  if (parent && ts.isBinaryExpression(parent)) {
    const other = parent.left === node ? parent.right : parent.left;
    return ts.isPropertyAccessExpression(other) && other.name.text === 'kind';
  }
  return false;
}

/** The literals of a Vue single-file component: its scripts parsed, its template read as text (comments left out). */
export function literalsOfVue(text: string): Spelled[] {
  const scripts = [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].flatMap((m) =>
    literalsOfScript(m[1] ?? ''),
  );
  const template = text
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '')
    .replace(/<style\b[^>]*>[\s\S]*?<\/style>/g, '')
    .replace(/<!--[\s\S]*?-->/g, '');
  return [...scripts, { text: template, asKind: false }];
}

export function literalsOfFile(file: string): Spelled[] {
  const text = readFileSync(file, 'utf8');
  return file.endsWith('.vue') ? literalsOfVue(text) : literalsOfScript(text, file);
}

/** Source files under `dir` (`.ts`, `.vue`), without tests, test suites and type declarations. */
export function sourceFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFilesUnder(full);
    if (/\.(test|suite)\.ts$|\.d\.ts$/.test(entry.name)) return [];
    return /\.(ts|vue)$/.test(entry.name) ? [full] : [];
  });
}

/** Each name spelled in more than one file, with those files: `name: a.ts, b.ts`. Pure. */
export function spelledTwice(byFile: ReadonlyMap<string, Iterable<string>>): string[] {
  const files = new Map<string, Set<string>>();
  for (const [file, names] of byFile) {
    for (const name of names) files.set(name, (files.get(name) ?? new Set()).add(file));
  }
  return [...files]
    .filter(([, where]) => where.size > 1)
    .map(([name, where]) => `${name}: ${[...where].sort().join(', ')}`)
    .sort();
}
