import { describe, expect, it } from 'vitest';
import { literal } from './postgres-literals.js';

// The text each value takes in a statement, written out by hand. String.raw keeps the backslashes as PostgreSQL
// reads them. That PostgreSQL reads each back as the value is tested in postgres-group.test.ts.
describe('literal', () => {
  it.each([
    ['null', null, 'NULL'],
    ['an integer', 42, '42'],
    ['a string with a quote and a backslash', String.raw`it's a\b`, String.raw` E'it''s a\\b'`],
    ['bytes', Buffer.from([0x00, 0xff]), String.raw`'\x00ff'`],
    ['an empty array', [], "E'{}'"],
    ['integers, null and booleans', [1, null, 3, true, false], "E'{1,NULL,3,t,f}'"],
    ['a name NULL and a name with braces and commas', ['NULL', '{a,b}'], `E'{"NULL","{a,b}"}'`],
    ['quotes in a name', [`say "hi" it's`], String.raw`E'{"say \\"hi\\" it''s"}'`],
    ['a backslash in a name', [String.raw`a\b`], String.raw`E'{"a\\\\b"}'`],
    [
      'JSON bytes in the escape format',
      [Buffer.from(String.raw`{"a":"\\x41 'q'"}`)],
      String.raw`E'{"{\\"a\\":\\"\\\\\\\\\\\\\\\\x41 ''q''\\"}"}'`,
    ],
    ['bytes that are not UTF-8 in hex', [Buffer.from([0xff, 0x5c])], String.raw`E'{"\\\\xff5c"}'`],
    ['UTF-8 with a NUL in hex', [Buffer.from([0x41, 0x00])], String.raw`E'{"\\\\x4100"}'`],
    ['non-ASCII text as it is', [Buffer.from('角色 ü')], `E'{"角色 ü"}'`],
  ])('writes %s', (_, value, text) => {
    expect(literal(value)).toBe(text);
  });

  it.each([
    ['a fraction', 1.5, 'not an integer: 1.5'],
    ['an unsafe integer in an array', [2 ** 53], 'not an integer: 9007199254740992'],
    ['an object', { a: 1 }, 'no SQL literal for object'],
    ['an object in an array', [{ a: 1 }], 'no SQL array element for object'],
  ])('refuses %s', (_, value, message) => {
    expect(() => literal(value)).toThrow(message);
  });
});
