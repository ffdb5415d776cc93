/**
 * The settings table: every setting of `svc serve`, in the order of its help and of docs/api.md's table. `Config`,
 * the typed result, is derived from it, so a setting is added by adding its entry to one of the groups.
 */
import { ACCESS_SETTINGS, LOG_SETTINGS } from './access-settings.js';
import { AUDIT_SETTINGS } from './audit-settings.js';
import { LISTEN_SETTINGS } from './listen-settings.js';
import { OIDC_SETTINGS } from './oidc-settings.js';
import { type Setting, setting } from './setting.js';
import { STORE_SETTINGS } from './store-settings.js';
import { absolutePath, optional } from './values.js';

const CONFIG_FILE = setting({
  key: 'config',
  field: 'configFile',
  env: 'SVC_CONFIG',
  arg: 'FILE',
  // The file cannot name another file.
  inFile: false,
  help: 'a YAML file of these settings',
  docs: 'a YAML file of these settings (see [Config file](#config-file))',
  parse: optional(absolutePath),
});

/** The settings by group, as `svc serve --help` shows them. */
export const SETTING_GROUPS = [
  { title: 'Config file', settings: [CONFIG_FILE] },
  { title: 'Listening', settings: LISTEN_SETTINGS },
  { title: 'Store and replicas', settings: STORE_SETTINGS },
  { title: 'Access', settings: ACCESS_SETTINGS },
  { title: 'Single sign-on', settings: OIDC_SETTINGS },
  { title: 'Logs and metrics', settings: LOG_SETTINGS },
  { title: 'Audit', settings: AUDIT_SETTINGS },
] as const;

export const SETTINGS = SETTING_GROUPS.flatMap((group): readonly Setting[] => group.settings);

type Entry = (typeof SETTING_GROUPS)[number]['settings'][number];
type Fields = { [E in Entry as E['field']]: ReturnType<E['parse']> };
/** The fields that may be undefined, optional in `Config` (a caller building one may leave them out). */
type MayBeUnset = { [F in keyof Fields]: undefined extends Fields[F] ? F : never }[keyof Fields];
type Flatten<T> = { [K in keyof T]: T[K] };

/** The settings as `svc serve` uses them (docs/api.md "Settings"): one field per entry of the table. */
export type Config = Flatten<Omit<Fields, MayBeUnset> & Partial<Pick<Fields, MayBeUnset>>>;
