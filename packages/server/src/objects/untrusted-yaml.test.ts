import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { MAX_YAML_BYTES, MAX_YAML_TOKENS, readYamlDocument, readYamlDocuments } from './untrusted-yaml.js';

const read = (text: string) => readYamlDocument(text, { what: 'the text' });
const refusal = async (text: string) => {
  const error = await read(text).then(
    () => undefined,
    (caught: { status?: number; message: string }) => caught,
  );
  if (!error) throw new Error('expected a refusal');
  return { status: error.status, message: error.message };
};
const keys = (count: number) => Array.from({ length: count }, (_, i) => `k${i}: 1`).join('\n');

describe('readYamlDocument', () => {
  it('reads what the yaml package reads, as plain data', async () => {
    const texts = [
      'apiVersion: v1\nkind: Person\nmetadata:\n  name: ann\n  labels: {tier: gold}\nspec:\n  age: 30\n',
      'a: [1, 2.5, -3, 0x1f, .inf, true, false, null, ~, "q", \'s\']\nb: !!str 1.0\nc: |\n  two\n  lines\nd: >\n  folded\n  text\n',
      '1: one\ntrue: yes\n"x y": z\nnested:\n  - - deep\n    - er\n  - {k: v}\n',
      '{"json": {"as": ["yaml", 1, null]}}',
      'text: "\\u00e9 \\t tab"\nempty:\nplain: multi\n  line\n',
    ];
    for (const text of texts) expect(await read(text)).toEqual(parse(text));
  });

  it('answers null for an empty text', async () => {
    expect(await read('')).toBeNull();
    expect(await read('# only a comment\n')).toBeNull();
  });

  it('keeps __proto__ an own key, leaving the prototype alone', async () => {
    const data = (await read('__proto__: {polluted: true}\nname: x\n')) as Record<string, unknown>;
    expect(Object.getPrototypeOf(data)).toBe(Object.prototype);
    expect(Object.keys(data)).toEqual(['__proto__', 'name']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a key given twice in one mapping, naming it and where, however many keys come first', async () => {
    expect(await refusal(`${keys(3000)}\nk17: 2\n`)).toEqual({
      status: 400,
      message: 'the text, line 3001, column 1: the key "k17" is given more than once',
    });
    // 1 and "1" are the same key of a JSON object.
    expect((await refusal('1: a\n"1": b\n')).message).toBe(
      'the text, line 2, column 1: the key "1" is given more than once',
    );
    expect((await refusal('{a: 1, a: 2}')).message).toMatch(/the key "a" is given more than once/);
    // The same key in different mappings is no duplicate.
    expect(await read('a: {k: 1}\nb: {k: 2}\n')).toEqual({ a: { k: 1 }, b: { k: 2 } });
  });

  it('refuses anchors, aliases, directives and tags outside the core schema', async () => {
    expect(await refusal('a: &x 1\nb: 2\n')).toEqual({
      status: 400,
      message: 'the text, line 1, column 4: anchors and aliases (&x) are not accepted; write the value out',
    });
    expect((await refusal('a: *x\n')).message).toMatch(/anchors and aliases \(\*x\)/);
    expect((await refusal('%YAML 1.1\n---\na: 1\n')).message).toMatch(/directives \(%YAML 1.1\) are not accepted/);
    expect((await refusal('a: !custom 1\n')).message).toMatch(/the tag !custom is not accepted/);
    expect((await refusal('a: !!binary aGk=\n')).message).toMatch(/the tag !!binary is not accepted/);
    // Inside a scalar these characters are text.
    expect(await read('a: "&x *y !z"\nb: |\n  &not an anchor\n')).toEqual({ a: '&x *y !z', b: '&not an anchor\n' });
  });

  it('refuses keys that are collections', async () => {
    expect((await refusal('? [a, b]\n: c\n')).message).toBe(
      'the text, line 1, column 3: a mapping key must be a scalar (a string or number)',
    );
  });

  it('reads 100 levels of nesting and refuses 101, in flow and block style, before reading further', async () => {
    expect(await read(`${'['.repeat(100)}${']'.repeat(100)}`)).toBeDefined();
    expect(await refusal(`${'['.repeat(101)}${']'.repeat(101)}`)).toEqual({
      status: 400,
      message: 'the text, line 1, column 101: nests deeper than 100 levels',
    });
    const block = (levels: number) =>
      `${Array.from({ length: levels }, (_, i) => `${' '.repeat(i)}k:`).join('\n')} leaf\n`;
    expect(await read(block(100))).toBeDefined();
    expect((await refusal(block(101))).message).toMatch(/line 101, column \d+: nests deeper than 100 levels/);
    // A million opening brackets stop at the 101st.
    expect((await refusal('['.repeat(200_000))).message).toMatch(/nests deeper than 100 levels/);
  });

  it(`refuses a document of more than ${MAX_YAML_TOKENS} tokens, not a stream of smaller ones`, async () => {
    // `kN: 1` is three tokens: the key, the colon and the value.
    expect(await read(keys(MAX_YAML_TOKENS / 3 - 1))).toBeDefined();
    expect(await refusal(keys(MAX_YAML_TOKENS / 3 + 1))).toEqual({
      status: 400,
      message: `the text, line 3334, column 6: a document of more than ${MAX_YAML_TOKENS} tokens (keys, values and marks) is not accepted`,
    });
    const two = `${keys(3000)}\n---\n${keys(3000)}\n`;
    expect(await readYamlDocuments(two, { what: 'the text' })).toHaveLength(2);
  });

  it(`refuses more than ${MAX_YAML_BYTES / 1024} KiB with a 413, counting bytes of UTF-8`, async () => {
    expect(await read(`a: ${'x'.repeat(MAX_YAML_BYTES - 3)}`)).toEqual({ a: 'x'.repeat(MAX_YAML_BYTES - 3) });
    expect(await refusal(`a: ${'x'.repeat(MAX_YAML_BYTES - 2)}`)).toEqual({
      status: 413,
      message: 'the text is larger than the 256 KiB accepted as YAML',
    });
    // é is two bytes.
    expect((await refusal(`a: ${'é'.repeat(MAX_YAML_BYTES / 2)}`)).status).toBe(413);
  });

  it('refuses a second document where one is read, and names syntax errors where they are', async () => {
    expect(await refusal('a: 1\n---\nb: 2\n')).toEqual({ status: 400, message: 'the text must be one YAML document' });
    expect((await refusal('a: 1\nb: [unclosed\n')).message).toMatch(
      /^the text, line \d+, column \d+: not valid YAML: /,
    );
    expect((await refusal(']\n')).message).toMatch(/^the text, line 1, column 1: not valid YAML: /);
    expect((await refusal('a: 1\n  b: 2\n')).message).toBe(
      'the text, line 1, column 4: not valid YAML: Nested mappings are not allowed in compact mappings',
    );
  });

  it('starts messages with the position alone when told nothing of what is read', async () => {
    const error = await readYamlDocument('a: 1\na: 2\n', {}).catch((caught: Error) => caught);
    expect((error as Error).message).toBe('line 2, column 1: the key "a" is given more than once');
  });
});
