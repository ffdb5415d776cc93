/** A client for the server the command line names: flags, then SVC_SERVER/SVC_TOKEN, then `svc login`'s file. */
import { readFile } from 'node:fs/promises';
import { SvcClient } from '@svc/client';
import { UsageError } from './args.js';
import { readLogin } from './config-file.js';
import { CommandError } from './report.js';

export interface ConnectionFlags {
  server?: string;
  token?: string;
  'certificate-authority'?: string;
}

export async function connect(flags: ConnectionFlags, env: NodeJS.ProcessEnv): Promise<SvcClient> {
  const stored = await readLogin(env);
  const named = flags.server ?? env.SVC_SERVER;
  const server = named ?? stored?.server;
  if (!server) throw new CommandError('no server: run `svc login <url>` first, or give --server URL (or SVC_SERVER)');
  let baseUrl: URL;
  try {
    baseUrl = new URL(server);
  } catch {
    throw new UsageError(`--server takes a URL such as http://127.0.0.1:8090, got "${server}"`);
  }
  // The stored token goes only to the server it was made for.
  const sameServer = stored !== undefined && baseUrl.origin === new URL(stored.server).origin;
  const token = flags.token ?? env.SVC_TOKEN ?? (sameServer ? stored.token : undefined);
  const ca = flags['certificate-authority']
    ? await readFile(flags['certificate-authority'], 'utf8')
    : sameServer
      ? stored.ca
      : undefined;
  return new SvcClient({ baseUrl, token, ca });
}
