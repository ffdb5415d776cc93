import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSecret } from './secret-input.js';

/** An input that says it is (or is not) a terminal, fed `typed`, and an output that keeps what was shown. */
function streams(typed: string, isTTY: boolean) {
  const input = Object.assign(new PassThrough(), { isTTY });
  const output = new PassThrough();
  let shown = '';
  output.on('data', (chunk) => (shown += String(chunk)));
  setImmediate(() => {
    input.write(typed);
    if (!isTTY) input.end();
  });
  return { io: { input, output }, shown: () => shown };
}

describe('readSecret', () => {
  it.each([
    ['typed at a terminal, Enter as a terminal sends it', 'hunter2\r', true, {}, 'hunter2', 'password: \n'],
    ['typed at a terminal, with its own prompt', 'pa ss\r', true, { prompt: 'token: ' }, 'pa ss', 'token: \n'],
    ['piped, its final newline dropped', 's3cret\n', false, { fromStdin: true }, 's3cret', ''],
    ['piped, other newlines kept', 'a\nb\r\n', false, { fromStdin: true }, 'a\nb', ''],
  ])('%s', async (_name, typed, isTTY, options, secret, shown) => {
    const s = streams(typed, isTTY);
    expect(await readSecret(options, s.io)).toBe(secret);
    // Never echoed: the terminal shows the prompt and the line break, nothing typed.
    expect(s.shown()).toBe(shown);
  });

  it('refuses to wait for a secret that is neither piped as asked nor typed at a terminal', async () => {
    const s = streams('', false);
    await expect(readSecret({}, s.io)).rejects.toThrow(/--password-stdin/);
  });
});
