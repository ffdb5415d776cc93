/** `svc kubeconfig`: a kubeconfig for kubectl and Kubernetes clients, with svc's CA and a new access token. */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { stringify } from 'yaml';
import { didYouMean } from '../util/suggest.js';
import { readSecret } from './secret-input.js';
import { ServerError, ServerSession } from './server-session.js';

export const KUBECONFIG_USAGE = `svc kubeconfig [--server URL] [--username U] [--password-stdin | --token T]
                      [--certificate-authority FILE] [--data-dir D] [--token-name N] [--expires 90d|never]
                      [--context NAME] [-o FILE]
  Signs in to svc over HTTPS, creates a personal access token holding your roles, and writes a kubeconfig
  (default: to standard output) that trusts svc's CA. Defaults: --server https://127.0.0.1:8443, the CA at
  <data dir>/tls/ca.crt (SVC_DATA_DIR or ./data), --username admin, the password from SVC_PASSWORD or a prompt.`;

const OPTIONS = {
  server: { type: 'string' },
  username: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  token: { type: 'string' },
  'certificate-authority': { type: 'string' },
  'data-dir': { type: 'string' },
  'token-name': { type: 'string' },
  expires: { type: 'string' },
  context: { type: 'string' },
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
} as const;

class UsageError extends Error {}

/** Runs the command and answers its exit code: 0, 1 when the work failed, 2 for a usage mistake. */
export async function kubeconfigCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let values: ReturnType<typeof parse>;
  try {
    values = parse(args);
  } catch (error) {
    console.error(`svc kubeconfig: ${(error as Error).message}\nusage: ${KUBECONFIG_USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(`usage: ${KUBECONFIG_USAGE}`);
    return 0;
  }
  try {
    const kubeconfig = await build(values, env);
    if (values.output && values.output !== '-') {
      await writeFile(values.output, kubeconfig, { mode: 0o600 });
      console.error(`wrote ${values.output}; use it with: KUBECONFIG=${values.output} kubectl get --raw /version`);
    } else {
      process.stdout.write(kubeconfig);
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      console.error(`svc kubeconfig: ${error.message}`);
      return 2;
    }
    if (error instanceof ServerError || (error as NodeJS.ErrnoException).code) {
      console.error(`svc kubeconfig: ${(error as Error).message}`);
      return 1;
    }
    throw error;
  }
}

function parse(args: string[]) {
  try {
    return parseArgs({ args, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const flag = /'(-{1,2}[^']+)'/.exec((error as Error).message)?.[1];
    const known = Object.keys(OPTIONS).map((o) => `--${o}`);
    throw new Error(flag ? `unknown flag "${flag}"${didYouMean(flag, known)}` : (error as Error).message);
  }
}

async function build(values: ReturnType<typeof parse>, env: NodeJS.ProcessEnv): Promise<string> {
  const server = new URL(values.server ?? env.SVC_SERVER ?? 'https://127.0.0.1:8443');
  if (server.protocol !== 'https:') {
    throw new UsageError(`--server must be an https:// URL (kubectl sends tokens only over TLS), got ${server.href}`);
  }
  const caFile =
    values['certificate-authority'] ??
    path.join(path.resolve(values['data-dir'] ?? env.SVC_DATA_DIR ?? './data'), 'tls/ca.crt');
  if (!values['certificate-authority'] && !existsSync(caFile)) {
    throw new UsageError(`no CA at ${caFile}: give --data-dir (svc's data directory) or --certificate-authority FILE`);
  }
  const ca = await readFile(caFile, 'utf8');
  const session = new ServerSession(server, { ca, token: values.token ?? undefined });
  const username = values.username ?? env.SVC_USERNAME ?? 'admin';
  if (!values.token) {
    const password = values['password-stdin']
      ? (await readSecret({ fromStdin: true })).trimEnd()
      : (env.SVC_PASSWORD ?? (await readSecret({ prompt: `password for ${username}: ` })));
    await session.signIn(username, password);
  }
  try {
    const permissions = await session.request('GET', '/apis/api.console.svc.run/v1alpha1/users/-/permissions');
    const roles = ((permissions.body as { roles?: string[] }).roles ?? []).filter(
      (r) => r !== 'anonymous' && r !== 'authenticated',
    );
    const spec: Record<string, unknown> = { name: values['token-name'] ?? `kubeconfig ${server.host}`, roles };
    const expiresAt = expiryOf(values.expires ?? '90d');
    if (expiresAt) spec.expiresAt = expiresAt;
    const created = await session.request('POST', '/apis/uc.api.security.svc.run/v1alpha1/personalaccesstokens', {
      spec,
    });
    const object = created.body as { metadata: { name: string; annotations?: Record<string, string> } };
    const token = object.metadata.annotations?.['security.svc.run/access-token'];
    if (!token) throw new ServerError(500, 'the server created a token but did not answer its secret');
    const who = (permissions.body as { username?: string }).username ?? username;
    return kubeconfigYaml({
      server: server.origin,
      ca,
      token,
      user: who,
      context: values.context ?? `svc-${server.hostname}`,
    });
  } finally {
    await session.signOut();
  }
}

/** `90d`, `12h`, `30m` from now, or `never`. */
function expiryOf(text: string): string | undefined {
  if (text === 'never') return undefined;
  const match = /^(\d+)([mhd])$/.exec(text);
  if (!match) throw new UsageError(`--expires takes a duration such as 30m, 12h or 90d, or "never"; got "${text}"`);
  const ms = Number(match[1]) * { m: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] as 'm' | 'h' | 'd'];
  return new Date(Date.now() + ms).toISOString();
}

/** The kubeconfig document (clientcmd's v1 Config). Pure. */
export function kubeconfigYaml(o: {
  server: string;
  ca: string;
  token: string;
  user: string;
  context: string;
}): string {
  const userName = `${o.user}@${o.context}`;
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name: o.context,
        cluster: { server: o.server, 'certificate-authority-data': Buffer.from(o.ca).toString('base64') },
      },
    ],
    users: [{ name: userName, user: { token: o.token } }],
    contexts: [{ name: o.context, context: { cluster: o.context, user: userName } }],
    'current-context': o.context,
    preferences: {},
  });
}
