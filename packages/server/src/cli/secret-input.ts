import { createInterface } from 'node:readline';

/**
 * A password or token: all of standard input (`--password-stdin`, for scripts), or typed at a prompt on the terminal
 * without echo. Hand-written because it is a dozen lines over node:readline.
 */
export async function readSecret(options: { fromStdin?: boolean; prompt?: string }): Promise<string> {
  if (options.fromStdin || !process.stdin.isTTY) {
    if (!options.fromStdin)
      throw new Error('no password: set SVC_PASSWORD, pass --password-stdin, or run on a terminal');
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    // `echo secret | svc …` ends the secret with a newline that is not part of it.
    return Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const muted = rl as unknown as { _writeToOutput: (s: string) => void };
  process.stderr.write(options.prompt ?? 'password: ');
  muted._writeToOutput = () => undefined;
  const answer = await new Promise<string>((resolve) => rl.question('', resolve));
  rl.close();
  process.stderr.write('\n');
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
