import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { KIND } from '@svc/plugin-api';
import { describe, expect, it } from 'vitest';
import { REPO } from './harness.js';
import {
  literalsOfFile,
  literalsOfScript,
  literalsOfVue,
  sourceFilesUnder,
  spelledTwice,
  svcRunDomains,
} from './vocabulary-scan.js';

/**
 * One source for each vocabulary (STYLE.md, "One source for a vocabulary"): every `svc.run` name (an API group, or
 * the domain of a label, annotation, finalizer or stored record) and every kind is spelled in one source file only.
 * svc's own are in @svc/plugin-api's vocabulary.ts; a plugin's in one file of its own. Tests may spell anything.
 */
const VOCABULARY = 'packages/plugin-api/src/vocabulary.ts';

/** The sources of every package and plugin, and of plugin UIs. */
function sourceFiles(): string[] {
  return ['packages', 'plugins']
    .flatMap((top) => readdirSync(path.join(REPO, top)).map((name) => path.join(REPO, top, name)))
    .flatMap((dir) => ['src', 'ui/src'].map((sub) => path.join(dir, sub)))
    .filter(existsSync)
    .flatMap(sourceFilesUnder);
}

function spelledBy(read: (file: string) => string[]): Map<string, string[]> {
  return new Map(sourceFiles().map((file) => [path.relative(REPO, file), read(file)]));
}

describe('one vocabulary', () => {
  it.each([
    { text: '/apis/api.console.svc.run/v1alpha1/users', want: ['api.console.svc.run'] },
    { text: 'rbac.authorization.svc.run/aggregate-to-', want: ['rbac.authorization.svc.run'] },
    { text: '.svc.run', want: ['svc.run'] },
    { text: 'https://svc.run/problems/', want: ['svc.run'] },
    { text: '^rbac\\.authorization\\.svc\\.run\\/aggregate-to-', want: ['rbac.authorization.svc.run'] },
    { text: 'use people.svc.run or api.people.svc.run', want: ['people.svc.run', 'api.people.svc.run'] },
    { text: 'svc.running', want: [] },
    { text: 'example.com/notes', want: [] },
  ])('reads the svc.run domains of "$text"', ({ text, want }) => {
    expect(svcRunDomains(text)).toEqual(want);
  });

  it('reads literals and kinds, not comments', () => {
    const code = [
      "// 'plugin.svc.run/plugin-name' in a comment",
      '/** `api.console.svc.run` in a doc comment */',
      "const a = { kind: 'Role', label: 'svc.run/hidden' };",
      'type B = { kind: "User" };',
      "const c = { kind: { const: 'Plugin' } };",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the code read holds a template literal
      "if (x.kind === 'Post') f(`${name}.svc.run`);",
      "const d = { title: 'Role' };",
      'const e = /^people\\.svc\\.run$/;',
    ].join('\n');
    const found = literalsOfScript(code);
    expect(found.filter((s) => s.asKind).map((s) => s.text)).toEqual(['Role', 'User', 'Plugin', 'Post']);
    expect(found.flatMap((s) => svcRunDomains(s.text))).toEqual(['svc.run', 'svc.run', 'people.svc.run']);
  });

  it('reads a Vue component: its scripts and its template, without its comments and styles', () => {
    const component = [
      '<script setup lang="ts">',
      "const group = 'content.svc.run'; // not 'plugin.svc.run'",
      '</script>',
      '<template><!-- security.svc.run --><p>uc.api.content.svc.run</p></template>',
      '<style scoped>.a::before { content: "api.svc.run"; }</style>',
    ].join('\n');
    expect(literalsOfVue(component).flatMap((s) => svcRunDomains(s.text))).toEqual([
      'content.svc.run',
      'uc.api.content.svc.run',
    ]);
  });

  it('names each name spelled twice, with its files', () => {
    const byFile = new Map([
      ['a.ts', ['svc.run', 'plugin.svc.run']],
      ['b.ts', ['plugin.svc.run']],
      ['c.ts', ['plugin.svc.run', 'people.svc.run']],
    ]);
    expect(spelledTwice(byFile)).toEqual(['plugin.svc.run: a.ts, b.ts, c.ts']);
  });

  it('spells every svc.run name in one source file', () => {
    const domains = spelledBy((file) => literalsOfFile(file).flatMap((s) => svcRunDomains(s.text)));
    expect(domains.get(VOCABULARY)).toContain('plugin.svc.run');
    expect(spelledTwice(domains)).toEqual([]);
  });

  it('spells every kind in one source file', () => {
    const kinds = spelledBy((file) => {
      const own = path.relative(REPO, file) === VOCABULARY ? Object.values(KIND) : [];
      // Kinds are PascalCase; a lowercase `kind` is a discriminated union's tag, not an object's kind.
      const spelled = literalsOfFile(file).filter((s) => s.asKind && /^[A-Z]/.test(s.text));
      return [...own, ...spelled.map((s) => s.text)];
    });
    expect(spelledTwice(kinds)).toEqual([]);
  });
});
