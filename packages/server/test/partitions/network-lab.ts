/**
 * A network of the partition tests' own, on this machine only: one network namespace per replica, each joined to the
 * root namespace by a veth pair in 10.X.K.0/30 (X from this process's id), and a PostgreSQL cluster of the test's
 * own (initdb, as the postgres user) listening on the root ends of the pairs, so each replica reaches the database
 * over a link the test can cut. A cut drops the replica's packets to and from PostgreSQL silently (nftables DROP in
 * its namespace: no reset, no ICMP), as a failed switch or a firewall would; a heal deletes the rules. Everything is
 * removed at `close`, also after a failure. Needs root, `ip`, `nft` and PostgreSQL's server binaries.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { appendFile, chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface Link {
  /** The namespace's name, for `ip netns exec`. */
  netns: string;
  /** The replica's address inside its namespace. */
  address: string;
  /** The database's address as this replica reaches it. */
  databaseUrl: string;
  /** The prefix that runs a command inside the namespace. */
  prefix: string[];
}

export interface NetworkLab {
  links: Record<string, Link>;
  /** `postgres://…` from the root namespace (the test's own connections). */
  databaseUrl: string;
  /** Drops every packet between `name`'s namespace and PostgreSQL, silently. */
  cut(name: string): void;
  heal(name: string): void;
  close(): Promise<void>;
}

const run = (command: string, args: string[]) => execFileSync(command, args, { stdio: 'pipe', encoding: 'utf8' });

/** Why the lab cannot run here, or undefined when it can. */
export function labUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not root';
  for (const tool of ['ip', 'nft', 'runuser']) {
    try {
      run('sh', ['-c', `command -v ${tool}`]);
    } catch {
      return `no ${tool} on the PATH`;
    }
  }
  if (!postgresBin()) return 'no PostgreSQL server binaries under /usr/lib/postgresql';
  return undefined;
}

function postgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  const found = versions.map((v) => path.join(root, v, 'bin')).find((bin) => existsSync(path.join(bin, 'initdb')));
  return found;
}

export async function startLab(names: string[]): Promise<NetworkLab> {
  const tag = String(process.pid % 100_000);
  const octet = 200 + (process.pid % 50);
  const port = 20_000 + (process.pid % 10_000);
  const links: Record<string, Link> = {};
  const made: Array<() => void> = [];
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-partitions-'));
  const bin = postgresBin()!;
  const asPostgres = (args: string[]) => run('runuser', ['-u', 'postgres', '--', ...args]);
  const lab: NetworkLab = {
    links,
    databaseUrl: `postgres://postgres@10.${octet}.1.1:${port}/postgres`,
    cut(name) {
      const { netns } = links[name]!;
      const rules = [
        'add table inet svc_cut',
        'add chain inet svc_cut out { type filter hook output priority 0 ; policy accept ; }',
        'add chain inet svc_cut in { type filter hook input priority 0 ; policy accept ; }',
        `add rule inet svc_cut out tcp dport ${port} drop`,
        `add rule inet svc_cut in tcp sport ${port} drop`,
      ];
      execFileSync('ip', ['netns', 'exec', netns, 'nft', '-f', '-'], { input: `${rules.join('\n')}\n` });
    },
    heal(name) {
      run('ip', ['netns', 'exec', links[name]!.netns, 'nft', 'delete', 'table', 'inet', 'svc_cut']);
    },
    async close() {
      for (const undo of made.reverse()) {
        try {
          undo();
        } catch {
          // Gone already; the rest is still removed.
        }
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    names.forEach((name, i) => {
      const netns = `svcp${tag}${name}`;
      const outside = `svo${tag}${name}`;
      const inside = `svi${tag}${name}`;
      const [root, replica] = [`10.${octet}.${i + 1}.1`, `10.${octet}.${i + 1}.2`];
      run('ip', ['netns', 'add', netns]);
      made.push(() => run('ip', ['netns', 'del', netns]));
      run('ip', ['link', 'add', outside, 'type', 'veth', 'peer', 'name', inside]);
      made.push(() => run('ip', ['link', 'del', outside]));
      run('ip', ['link', 'set', inside, 'netns', netns]);
      run('ip', ['addr', 'add', `${root}/30`, 'dev', outside]);
      run('ip', ['link', 'set', outside, 'up']);
      const inNs = (args: string[]) => run('ip', ['netns', 'exec', netns, ...args]);
      inNs(['ip', 'addr', 'add', `${replica}/30`, 'dev', inside]);
      inNs(['ip', 'link', 'set', inside, 'up']);
      inNs(['ip', 'link', 'set', 'lo', 'up']);
      links[name] = {
        netns,
        address: replica,
        databaseUrl: `postgres://postgres@${root}:${port}/postgres`,
        prefix: ['ip', 'netns', 'exec', netns],
      };
    });
    await chown(dir, uidOf('postgres'), gidOf('postgres'));
    const data = path.join(dir, 'data');
    asPostgres([path.join(bin, 'initdb'), '-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    await appendFile(path.join(data, 'pg_hba.conf'), `host all all 10.${octet}.0.0/16 trust\n`);
    const listen = names.map((_, i) => `10.${octet}.${i + 1}.1`).join(',');
    asPostgres([
      path.join(bin, 'pg_ctl'),
      '-D',
      data,
      '-l',
      path.join(dir, 'postgres.log'),
      '-w',
      '-o',
      `-c listen_addresses='${listen}' -p ${port} -k ${dir} -c max_connections=200`,
      'start',
    ]);
    made.push(() => asPostgres([path.join(bin, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop']));
  } catch (error) {
    await lab.close();
    throw error;
  }
  return lab;
}

function uidOf(user: string): number {
  return Number(run('id', ['-u', user]).trim());
}

function gidOf(user: string): number {
  return Number(run('id', ['-g', user]).trim());
}
