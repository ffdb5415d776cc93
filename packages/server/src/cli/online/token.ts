/** `svc token create`: a new personal access token, its secret printed once. */
import { CONNECTION_OPTIONS, CONNECTION_USAGE, expiryOf, parse, UsageError, wantsHelp } from './args.js';
import { connect } from './connect.js';
import { CommandError, runCommand } from './report.js';

export const TOKEN_USAGE = `svc token create [--name N] [--expires 90d|never] [--role R]...
  Creates a personal access token (default: holding all your roles, for 90 days) and prints its secret, once.
${CONNECTION_USAGE}`;

const TOKENS = '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens';
const PERMISSIONS = '/apis/api.console.svc.run/v1alpha1/users/-/permissions';

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
    let roles = values.role;
    if (!roles?.length) {
      const permissions = await client.request<{ roles?: string[] }>('GET', PERMISSIONS);
      roles = (permissions.roles ?? []).filter((r) => r !== 'anonymous' && r !== 'authenticated');
    }
    const spec: Record<string, unknown> = { name: values.name ?? `svc token ${new Date().toISOString()}`, roles };
    if (expiresAt) spec.expiresAt = expiresAt;
    const created = await client.request<{ metadata: { name: string; annotations?: Record<string, string> } }>(
      'POST',
      TOKENS,
      { body: { spec } },
    );
    const secret = created.metadata.annotations?.['security.svc.run/access-token'];
    if (!secret) throw new CommandError('the server created a token but did not answer its secret');
    console.error(
      `Token ${created.metadata.name} created${expiresAt ? `, expiring ${expiresAt}` : ''}; it is shown once:`,
    );
    console.log(secret);
  });
}
