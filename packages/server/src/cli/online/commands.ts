/** The commands that talk to a running svc, by name: what cli.ts dispatches to. */
import { APPLY_USAGE, applyCommand, DELETE_USAGE, deleteCommand } from './apply.js';
import { GET_USAGE, getCommand, WATCH_USAGE, watchCommand } from './get.js';
import { KUBECONFIG_USAGE, kubeconfigCommand } from './kubeconfig.js';
import { LOGIN_USAGE, LOGOUT_USAGE, loginCommand, logoutCommand } from './login.js';
import { TOKEN_USAGE, tokenCommand } from './token.js';

type Command = (args: string[], env: NodeJS.ProcessEnv) => Promise<number>;

const COMMANDS: Record<string, { run: Command; usage: string }> = {
  login: { run: loginCommand, usage: LOGIN_USAGE },
  logout: { run: logoutCommand, usage: LOGOUT_USAGE },
  get: { run: getCommand, usage: GET_USAGE },
  apply: { run: applyCommand, usage: APPLY_USAGE },
  delete: { run: deleteCommand, usage: DELETE_USAGE },
  watch: { run: watchCommand, usage: WATCH_USAGE },
  token: { run: tokenCommand, usage: TOKEN_USAGE },
  kubeconfig: { run: kubeconfigCommand, usage: KUBECONFIG_USAGE },
};

export function onlineCommand(name: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return COMMANDS[name]!.run(args, env);
}
