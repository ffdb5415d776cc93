/**
 * What the YAML editor marks: the text's YAML syntax errors, or, when it parses, where the object breaks its model's
 * schema, each at its range and line. Pure.
 */
import { checkAgainstSchema, type Schema } from './schema-check.js';
import { lineOf, parseWithLines, rangeOfPointer } from './yaml-positions.js';

export interface YamlDiagnostic {
  from: number;
  to: number;
  /** 1-based. */
  line: number;
  /** The field's path (`spec.age`); empty for a syntax error. */
  path: string;
  message: string;
}

/** `/spec/tags/0` → `spec.tags[0]`, as a reader writes it. */
export function pathOfPointer(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((key) => key.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, key) => (/^\d+$/.test(key) ? `${path}[${key}]` : path ? `${path}.${key}` : key), '');
}

export function yamlDiagnostics(text: string, schema: Schema | undefined): YamlDiagnostic[] {
  const { doc, lines } = parseWithLines(text);
  const at = (from: number, to: number, path: string, message: string): YamlDiagnostic => ({
    from,
    to: Math.max(to, from),
    line: lineOf(lines, from),
    path,
    message,
  });
  if (doc.errors.length > 0) {
    // The first line of each message, less its position (the list gives the line); one of each per line.
    const found = doc.errors.map((e) =>
      at(e.pos[0], e.pos[1], '', e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')),
    );
    return found.filter((d, i) => found.findIndex((o) => o.line === d.line && o.message === d.message) === i);
  }
  if (!schema) return [];
  const object = doc.toJS({ maxAliasCount: 100 }) as unknown;
  return checkAgainstSchema(object, schema)
    .map((problem) => {
      const range = rangeOfPointer(doc, problem.pointer);
      return at(range.from, range.to, pathOfPointer(problem.pointer), problem.message);
    })
    .sort((a, b) => a.from - b.from);
}
