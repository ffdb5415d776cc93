/** `svc admin …`: administration on the data directory or database itself, for when nobody can sign in. */
import { resetLostPassword } from '../authn/lost-password.js';
import { openStore } from '../store/open-store.js';
import { didYouMean } from '../util/suggest.js';
import {
  describeLocation,
  exitCodeOf,
  helpOf,
  parseCommandLine,
  STORE_FLAGS,
  STORE_OPTIONS,
  STORE_USAGE,
  storeLocationOf,
  UsageError,
} from './offline-command.js';
import { readSecret } from './secret-input.js';

export const RESET_PASSWORD_USAGE = helpOf(
  `svc admin reset-password <user> ${STORE_USAGE} [--password-stdin]`,
  `  For a lost password: sets the user's password and ends their sessions; nothing else changes (a disabled user
  stays disabled, tokens stay valid). The server may be stopped or running (then it may keep a session until restart).`,
  [['--password-stdin', 'read the password from standard input (else one is made and printed once)'], ...STORE_FLAGS],
);

export const ADMIN_USAGE = `svc admin reset-password …   (svc admin reset-password --help)`;

const SUBCOMMANDS = ['reset-password'];

const OPTIONS = {
  ...STORE_OPTIONS,
  'password-stdin': { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

export async function adminCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [subcommand, ...rest] = args;
  if (subcommand === 'reset-password') return resetPasswordCommand(rest, env);
  if (subcommand === '--help' || subcommand === '-h' || subcommand === 'help') {
    console.log(`usage: ${RESET_PASSWORD_USAGE}`);
    return 0;
  }
  if (subcommand === undefined) {
    console.error(`svc admin: which command? (${SUBCOMMANDS.join(', ')})\nusage: ${ADMIN_USAGE}`);
    return 2;
  }
  console.error(
    `svc admin: unknown command "${subcommand}"${didYouMean(subcommand, SUBCOMMANDS)}\nusage: ${ADMIN_USAGE}`,
  );
  return 2;
}

function resetPasswordCommand(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return exitCodeOf('admin reset-password', RESET_PASSWORD_USAGE, async () => {
    const { values, positionals } = parseCommandLine(args, OPTIONS, 1);
    if (values.help) return void console.log(`usage: ${RESET_PASSWORD_USAGE}`);
    const username = positionals[0];
    if (!username) throw new UsageError('which user? give the username');
    const location = storeLocationOf(values, env);
    const password = values['password-stdin'] ? await readSecret({ fromStdin: true }) : undefined;
    const store = await openStore(location);
    try {
      const reset = await resetLostPassword(store, username, password);
      if (reset.generatedPassword) {
        console.log(`new password for "${username}" (shown once):\n\n    ${reset.generatedPassword}\n`);
      }
      console.error(
        `svc admin: reset the password of "${username}" in ${describeLocation(location)} and ended ` +
          `${reset.sessionsEnded} of their sessions`,
      );
      if (reset.disabled)
        console.error(`svc admin: note: "${username}" is disabled; an administrator must enable them`);
    } finally {
      await store.close();
    }
  });
}
