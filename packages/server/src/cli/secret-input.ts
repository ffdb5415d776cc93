import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/** Where the prompt and the secret are read. */
export interface SecretStreams {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  /** Shows the prompt; never the secret. */
  output: NodeJS.WritableStream;
}

const STANDARD: SecretStreams = { input: process.stdin, output: process.stderr };

/**
 * A password or token: all of standard input (`--password-stdin`, for scripts), or typed at a prompt on the terminal
 * without echo. Hand-written because it is a dozen lines over node:readline.
 */
export async function readSecret(
  options: { fromStdin?: boolean; prompt?: string },
  { input, output }: SecretStreams = STANDARD,
): Promise<string> {
  if (options.fromStdin || !input.isTTY) {
    if (!options.fromStdin)
      throw new Error('no password: set SVC_PASSWORD, pass --password-stdin, or run on a terminal');
    const chunks: Buffer[] = [];
    for await (const chunk of input) chunks.push(Buffer.from(chunk));
    // `echo secret | svc …` ends the secret with a newline that is not part of it.
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  // The terminal's line editing writes what is typed to readline's output: that output is a sink, so nothing echoes.
  const silent = new Writable({ write: (_chunk, _encoding, done) => done() });
  const rl = createInterface({ input, output: silent, terminal: true });
  output.write(options.prompt ?? 'password: ');
  const answer = await new Promise<string>((resolve) => rl.question('', resolve));
  rl.close();
  output.write('\n');
  return answer;
}

/** The password to sign in with: standard input with `--password-stdin`, else SVC_PASSWORD, else a prompt. */
export function signInPassword(
  fromStdin: boolean | undefined,
  env: NodeJS.ProcessEnv,
  prompt: string,
): Promise<string> {
  if (fromStdin) return readSecret({ fromStdin: true });
  return env.SVC_PASSWORD !== undefined ? Promise.resolve(env.SVC_PASSWORD) : readSecret({ prompt });
}
