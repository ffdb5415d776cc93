/** `svc token create`: a new personal access token, its secret printed once. */
import { CONNECTION_OPTIONS, CONNECTION_USAGE, expiryOf, parse, UsageError, wantsHelp } from './args.js';
import { connect } from './connect.js';
import { createPersonalToken } from './personal-token.js';
import { runCommand } from './report.js';

export const TOKEN_USAGE = `svc token create [--name N] [--expires 90d|never] [--role R]...
  Creates a personal access token (default: holding all your roles, for 90 days) and prints its secret, once.
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
    if (positionals[0] !== 'create') {
      throw new UsageError(
        positionals[0] === undefined ? 'which command? create' : `unknown token command "${positionals[0]}"`,
      );
    }
    if (positionals.length > 1) throw new UsageError(`unexpected argument "${positionals[1]}"`);
    const expiresAt = expiryOf(values.expires ?? '90d', new Date());
    const client = await connect(values, env);
    const created = await createPersonalToken((method, path, body) => client.request(method, path, { body }), {
      name: values.name ?? `svc token ${new Date().toISOString()}`,
      expiresAt,
      roles: values.role,
    });
    console.error(`Token ${created.name} created${expiresAt ? `, expiring ${expiresAt}` : ''}; it is shown once:`);
    console.log(created.secret);
  });
}
