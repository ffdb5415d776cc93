/** `svc kubeconfig`: a kubeconfig for kubectl and Kubernetes clients, with svc's CA and a new access token. */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SvcClient } from '@svc/client';
import { stringify } from 'yaml';
import { signInPassword } from '../secret-input.js';
import { expiryOf, parse, UsageError, wantsHelp } from './args.js';
import { readLogin } from './config-file.js';
import { createPersonalToken } from './personal-token.js';
import { CommandError, runCommand } from './report.js';

export const KUBECONFIG_USAGE = `svc kubeconfig [--server URL] [--username U] [--password-stdin | --token T]
                      [--certificate-authority FILE] [--data-dir D] [--token-name N] [--expires 90d|never]
                      [--context NAME] [-o FILE]
  Signs in, makes a personal access token with your roles and writes a kubeconfig (stdout, or -o) naming svc's
  HTTPS URL and CA. Server: --server, SVC_SERVER, \`svc login\`'s, else http://127.0.0.1:8090 (from http://, the
  HTTPS port is asked of the server). CA: <data dir>/tls/ca.crt (SVC_DATA_DIR or ./data). Password: SVC_PASSWORD
  or a prompt; --username defaults to admin.`;

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

export function kubeconfigCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return runCommand('kubeconfig', KUBECONFIG_USAGE, async () => {
    if (wantsHelp(args)) return void console.log(`usage: ${KUBECONFIG_USAGE}`);
    const { values, positionals } = parse(args, OPTIONS);
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const stored = await readLogin(env);
    const named = values.server ?? env.SVC_SERVER ?? stored?.server ?? DEFAULT_SERVER;
    let given: URL;
    try {
      given = new URL(named);
    } catch {
      throw new UsageError(`--server takes a URL such as https://127.0.0.1:8443, got "${named}"`);
    }
    if (given.protocol !== 'https:' && given.protocol !== 'http:') {
      throw new UsageError(`--server must be an http:// or https:// URL, got ${given.href}`);
    }
    const expiresAt = expiryOf(values.expires ?? '90d', new Date());
    const dataDir = path.resolve(values['data-dir'] ?? env.SVC_DATA_DIR ?? './data');
    const caFile = values['certificate-authority'] ?? path.join(dataDir, 'tls/ca.crt');
    const sameServer = stored !== undefined && new URL(stored.server).origin === given.origin;
    // The CA: the one named, else svc's own under the data dir, else the one `svc login` kept for this server.
    const storedCa = sameServer ? stored.ca : undefined;
    if (!values['certificate-authority'] && !existsSync(caFile) && storedCa === undefined) {
      throw new UsageError(
        `no CA at ${caFile}: give --data-dir (svc's data directory) or --certificate-authority FILE`,
      );
    }
    const ca =
      values['certificate-authority'] || existsSync(caFile) ? await readFile(caFile, 'utf8') : (storedCa as string);
    const signedIn = values.token ?? (sameServer && !values.username ? stored.token : undefined);
    const session = new SvcClient({ baseUrl: given.origin, ca, token: signedIn });
    const username = values.username ?? env.SVC_USERNAME ?? stored?.username ?? 'admin';
    if (!signedIn) {
      const password = await signInPassword(values['password-stdin'], env, `password for ${username}: `);
      await session.signIn(username, password);
    }
    try {
      const server = given.protocol === 'https:' ? given : await httpsUrlOf(session, given);
      const token = await createPersonalToken((method, p, body) => session.request(method, p, { body }), {
        name: values['token-name'] ?? `kubeconfig ${server.host}`,
        expiresAt,
      });
      const kubeconfig = kubeconfigYaml({
        server: server.origin,
        ca,
        token: token.secret,
        user: token.username || username,
        context: values.context ?? `svc-${server.hostname}`,
      });
      if (values.output && values.output !== '-') {
        await writeFile(values.output, kubeconfig, { mode: 0o600 });
        console.error(`wrote ${values.output}; use it with: KUBECONFIG=${values.output} kubectl api-resources`);
      } else {
        process.stdout.write(kubeconfig);
      }
    } finally {
      if (!signedIn) await session.signOut();
      await session.close();
    }
  });
}

const DEFAULT_SERVER = 'http://127.0.0.1:8090';

/**
 * The HTTPS URL of the server reached at `http` (kubectl sends tokens only over TLS): its host, and the HTTPS port
 * `GET /api` names in serverAddressByClientCIDRs (the address Kubernetes clients are told to use).
 */
async function httpsUrlOf(client: SvcClient, http: URL): Promise<URL> {
  const api = await client.request<{ serverAddressByClientCIDRs?: Array<{ serverAddress?: string }> }>('GET', '/api');
  const address = api.serverAddressByClientCIDRs?.[0]?.serverAddress ?? '';
  const port = /:(\d+)$/.exec(address)?.[1];
  const ownPort = http.port || '80';
  if (port === undefined || port === ownPort) {
    throw new CommandError(
      `${http.origin} serves no HTTPS (started with --https-port off?): kubectl sends tokens only over TLS; ` +
        'start svc with HTTPS, or give --server https://HOST:PORT',
    );
  }
  const url = new URL(http.origin);
  url.protocol = 'https:';
  url.port = port;
  return url;
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
