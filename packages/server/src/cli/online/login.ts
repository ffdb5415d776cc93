/** `svc login <url>` and `svc logout`: a personal access token made by signing in, kept in the user's config dir. */
import { readFile } from 'node:fs/promises';
import { SvcClient } from '@svc/client';
import { signInPassword } from '../secret-input.js';
import { expiryOf, parse, UsageError, wantsHelp } from './args.js';
import { configPath, forgetLogin, readLogin, writeLogin } from './config-file.js';
import { createPersonalToken, tokenPath } from './personal-token.js';
import { describeError, runCommand } from './report.js';

export const LOGIN_USAGE = `svc login <url> [--username U] [--password-stdin] [--certificate-authority FILE]
                 [--token-name N] [--expires 90d|never]
  Signs in (the password from --password-stdin, SVC_PASSWORD or a prompt), creates a personal access token holding
  your roles, and stores the server, the token and the CA in ${'$'}XDG_CONFIG_HOME/svc/config.json (mode 0600).`;
export const LOGOUT_USAGE = `svc logout
  Deletes the stored token on the server and forgets it.`;

const LOGIN_OPTIONS = {
  username: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  'certificate-authority': { type: 'string' },
  'token-name': { type: 'string' },
  expires: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export function loginCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return runCommand('login', LOGIN_USAGE, async () => {
    if (wantsHelp(args)) return void console.log(`usage: ${LOGIN_USAGE}`);
    const { values, positionals } = parse(args, LOGIN_OPTIONS);
    if (positionals.length !== 1) throw new UsageError('one server URL is required, such as http://127.0.0.1:8090');
    let server: URL;
    try {
      server = new URL(positionals[0]!);
    } catch {
      throw new UsageError(`not a URL: "${positionals[0]}"`);
    }
    const expiresAt = expiryOf(values.expires ?? '90d', new Date());
    const caFile = values['certificate-authority'];
    const ca = caFile ? await readFile(caFile, 'utf8') : undefined;
    const username = values.username ?? env.SVC_USERNAME ?? 'admin';
    const password = await signInPassword(
      values['password-stdin'],
      env,
      `password for ${username} at ${server.origin}: `,
    );

    const session = new SvcClient({ baseUrl: server.origin, ca });
    await session.signIn(username, password);
    try {
      const token = await createPersonalToken((method, path, body) => session.request(method, path, { body }), {
        name: values['token-name'] ?? `svc login ${server.host}`,
        expiresAt,
      });
      const file = await writeLogin(env, {
        server: server.origin,
        token: token.secret,
        tokenName: token.name,
        username,
        ca,
      });
      console.log(`Signed in to ${server.origin} as ${username}; the token is stored in ${file}`);
    } finally {
      await session.signOut();
      await session.close();
    }
  });
}

export function logoutCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return runCommand('logout', LOGOUT_USAGE, async () => {
    if (wantsHelp(args)) return void console.log(`usage: ${LOGOUT_USAGE}`);
    const { positionals } = parse(args, { help: { type: 'boolean', short: 'h' } });
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const stored = await readLogin(env);
    if (!stored) return void console.log(`Not signed in (no ${configPath(env)})`);
    if (stored.tokenName) {
      const client = new SvcClient({ baseUrl: stored.server, ca: stored.ca, token: stored.token });
      // The token goes on the server too; if the server cannot be reached, it still expires on its own.
      await client
        .request('DELETE', tokenPath(stored.tokenName))
        .catch((error: Error) =>
          console.error(`svc logout: the token was not deleted on the server: ${describeError(error)}`),
        )
        .finally(() => client.close());
    }
    await forgetLogin(env);
    console.log(`Signed out of ${stored.server}`);
  });
}
