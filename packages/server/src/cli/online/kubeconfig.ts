/** `svc kubeconfig`: a kubeconfig for kubectl and Kubernetes clients, with svc's CA and a new access token. */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SvcClient } from '@svc/client';
import { stringify } from 'yaml';
import { signInPassword } from '../secret-input.js';
import { expiryOf, parse, UsageError, wantsHelp } from './args.js';
import { createPersonalToken } from './personal-token.js';
import { runCommand } from './report.js';

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

export function kubeconfigCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return runCommand('kubeconfig', KUBECONFIG_USAGE, async () => {
    if (wantsHelp(args)) return void console.log(`usage: ${KUBECONFIG_USAGE}`);
    const { values, positionals } = parse(args, OPTIONS);
    if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"`);
    const server = new URL(values.server ?? env.SVC_SERVER ?? 'https://127.0.0.1:8443');
    if (server.protocol !== 'https:') {
      throw new UsageError(`--server must be an https:// URL (kubectl sends tokens only over TLS), got ${server.href}`);
    }
    const expiresAt = expiryOf(values.expires ?? '90d', new Date());
    const dataDir = path.resolve(values['data-dir'] ?? env.SVC_DATA_DIR ?? './data');
    const caFile = values['certificate-authority'] ?? path.join(dataDir, 'tls/ca.crt');
    if (!values['certificate-authority'] && !existsSync(caFile)) {
      throw new UsageError(
        `no CA at ${caFile}: give --data-dir (svc's data directory) or --certificate-authority FILE`,
      );
    }
    const ca = await readFile(caFile, 'utf8');
    const session = new SvcClient({ baseUrl: server.origin, ca, token: values.token });
    const username = values.username ?? env.SVC_USERNAME ?? 'admin';
    if (!values.token) {
      const password = await signInPassword(values['password-stdin'], env, `password for ${username}: `);
      await session.signIn(username, password);
    }
    try {
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
      await session.signOut();
      await session.close();
    }
  });
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
