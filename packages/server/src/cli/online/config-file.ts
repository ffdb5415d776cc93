/** Where `svc login` keeps what it got: `$XDG_CONFIG_HOME/svc/config.json` (default ~/.config/svc), mode 0600. */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';

export interface StoredLogin {
  /** The server's origin, `http://127.0.0.1:8090`. */
  server: string;
  token: string;
  /** The token object's name, so `svc logout` can delete it. */
  tokenName?: string;
  username?: string;
  /** PEM certificate(s) to trust over HTTPS. */
  ca?: string;
}

export function configPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || path.join(homedir(), '.config');
  return path.join(base, 'svc', 'config.json');
}

export async function readLogin(env: NodeJS.ProcessEnv): Promise<StoredLogin | undefined> {
  let text: string;
  try {
    text = await readFile(configPath(env), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const stored = JSON.parse(text) as StoredLogin;
    return typeof stored.server === 'string' && typeof stored.token === 'string' ? stored : undefined;
  } catch {
    throw new Error(`${configPath(env)} is not valid JSON: run svc login again`);
  }
}

export async function writeLogin(env: NodeJS.ProcessEnv, login: StoredLogin): Promise<string> {
  const file = configPath(env);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  // The file holds a bearer token: only its owner may read it, even if it existed with wider permissions.
  await rm(file, { force: true });
  await writeFile(file, `${JSON.stringify(login, null, 2)}\n`, { mode: 0o600 });
  return file;
}

export async function forgetLogin(env: NodeJS.ProcessEnv): Promise<void> {
  await rm(configPath(env), { force: true });
}
