/** The settings of the store, of replicas sharing one, and of what runs on this server (controllers, plugins). */
import { setting } from './setting.js';
import {
  absolutePath,
  boolean,
  indexSnapshots,
  oneOf,
  optional,
  paths,
  postgresUrl,
  replicaId,
  text,
  wholeNumber,
} from './values.js';

export const STORE_SETTINGS = [
  setting({
    key: 'dataDir',
    env: 'SVC_DATA_DIR',
    arg: 'DIR',
    default: './data',
    help: 'the embedded database, installed plugins, keys',
    docs:
      "embedded database, installed plugins, keys; its owner's alone (see " +
      '[The data directory](#the-data-directory))',
    parse: absolutePath,
  }),
  setting({
    key: 'databaseUrl',
    env: 'SVC_DATABASE_URL',
    arg: 'URL',
    help: 'postgres://… instead of the embedded SQLite',
    docs: 'unset = embedded SQLite in the data dir; `postgres://…` = PostgreSQL',
    parse: optional(postgresUrl),
  }),
  setting({
    key: 'databaseSchema',
    env: 'SVC_DATABASE_SCHEMA',
    arg: 'NAME',
    unset: '`public`',
    help: "PostgreSQL schema of svc's tables (public)",
    docs:
      "the PostgreSQL schema holding svc's tables (created if absent); servers on the same schema are replicas of " +
      'one svc (see [Replicas](#replicas)); separate schemas are separate stores',
    parse: optional(text),
  }),
  setting({
    key: 'sqliteSync',
    env: 'SVC_SQLITE_SYNC',
    arg: 'normal|full',
    default: 'normal',
    help: 'full: SQLite commits survive power loss too',
    docs:
      'when a commit to the embedded SQLite database is durable: `normal` survives a crash or `kill -9` of svc but ' +
      'may lose the last commits on a power loss or OS crash (never corrupting the file); `full` fsyncs the WAL at ' +
      'every group commit, surviving those too, at a cost in creates per second ([docs/performance.md](performance.md)). ' +
      'PostgreSQL follows its own `synchronous_commit` (default `on`: durable). svc logs the level the database reports at start (`store: sqlite, synchronous=normal`)',
    parse: oneOf(['normal', 'full'], 'normal or full'),
  }),
  setting({
    key: 'watchHistory',
    env: 'SVC_WATCH_HISTORY',
    arg: 'N',
    default: '100000',
    help: 'change events kept for watches to resume from',
    docs:
      'change events kept for watches to resume from; older ones are compacted away (checked every 10 s), see ' +
      '[Watch](#watch)',
    parse: wholeNumber('a whole number of events, at least 1', 1),
  }),
  setting({
    key: 'indexSnapshots',
    field: 'indexSnapshotMinObjects',
    env: 'SVC_INDEX_SNAPSHOTS',
    arg: 'on|off|N',
    default: 'on',
    help: "keep big models' indexes across restarts",
    docs:
      '`on`: a graceful stop (SIGTERM, Ctrl-C) writes the indexes of every model holding 10,000 objects or more to ' +
      'the store, and the next start reads them back and applies the changes the history holds since, instead of ' +
      'decoding every stored object (a million persons: [docs/performance.md](performance.md#a-million-objects)); a ' +
      "number sets that minimum; `off` neither writes nor reads them. A snapshot is used only if the model's indexes " +
      "(each `indexFunc`'s source), the plugin's files (by content, so replicas holding the same files share it) and " +
      "svc's version are those it was written with, its history is still kept (`SVC_WATCH_HISTORY`) and its bytes " +
      'check out; otherwise the start builds from the objects, as after a crash, logs why, and removes it. Snapshots ' +
      "live in the store's secret records and never go into a backup",
    parse: indexSnapshots,
  }),
  setting({
    key: 'replicaId',
    env: 'SVC_REPLICA_ID',
    arg: 'NAME',
    unset: 'host name and a digest of the data dir',
    help: "this server's name among replicas",
    docs: "this server's name among replicas: in a Plugin's `status.replicas` and the `leases` table",
    parse: replicaId,
  }),
  setting({
    key: 'controllers',
    env: 'SVC_CONTROLLERS',
    arg: 'on|off',
    default: 'on',
    help: 'off: serve the API only, never reconcile',
    docs:
      "`off` makes this server serve the API only: it never takes the controllers' lease, so no reconciler (plugins' " +
      'included), garbage collection or history compaction runs on it. With replicas another one leads; alone, ' +
      'finalizers and statuses wait until a server with controllers on starts. Progress of the controllers is at ' +
      '[`/metrics`](#metrics)',
    parse: boolean,
  }),
  setting({
    key: 'pluginsDir',
    field: 'pluginsDirs',
    env: 'SVC_PLUGINS_DIR',
    arg: 'DIR:DIR',
    unset: 'unset (`npm start`: `./plugins`)',
    list: ':',
    help: 'folders of plugins started at boot',
    docs: '`:`-separated folders whose plugin sub-folders (and `.tgz`/`.zip` archives) are installed and started at boot',
    parse: paths,
  }),
] as const;
