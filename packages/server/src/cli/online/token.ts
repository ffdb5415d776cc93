/** `svc token create`: a new personal access token, its secret printed once. */
import { CONNECTION_OPTIONS, CONNECTION_USAGE, expiryOf, parse, UsageError, wantsHelp } from './args.js';
import { connect } from './connect.js';
import { createPersonalToken, TOKENS, type TokenObject, tokenTable } from './personal-token.js';
import { runCommand } from './report.js';

export const TOKEN_USAGE = `svc token create [--name N] [--expires 90d|never] [--role R]...
  Creates a personal access token (default: holding all your roles, for 90 days) and prints its secret, once.
svc token list
  Lists your tokens: the name you gave, the token's id, its roles, when it expires, whether it is revoked.
${CONNECTION_USAGE}`;

export function tokenCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return runCommand('token', TOKEN_USAGE, async () => {
    if (wantsHelp(args)) return void console.log(`usage: ${TOKEN_USAGE}`);
    const { values, positionals } = parse(args, {
      ...CONNECTION_OPTIONS,
      name: { type: 'string' },
      expires: { type: 'string' },
      role: { type: 'string', multiple: true },
    });
    if (positionals[0] !== 'create' && positionals[0] !== 'list') {
      throw new UsageError(
        positionals[0] === undefined ? 'which command? create or list' : `unknown token command "${positionals[0]}"`,
      );
    }
    if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
    if (positionals[0] === 'list') {
      const client = await connect(values, env);
      const listed = (await client.request('GET', TOKENS)) as { items: TokenObject[] };
      return void console.log(tokenTable(listed.items));
    }
    const expiresAt = expiryOf(values.expires ?? '90d', new Date());
    const client = await connect(values, env);
    const created = await createPersonalToken((method, path, body) => client.request(method, path, { body }), {
      name: values.name ?? `svc token ${new Date().toISOString()}`,
      expiresAt,
      roles: values.role,
    });
    console.error(
      `Token "${created.displayName}" (${created.name}) created${expiresAt ? `, expiring ${expiresAt}` : ''}; ` +
        'it is shown once:',
    );
    console.log(created.secret);
  });
}
