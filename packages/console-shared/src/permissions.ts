import { allows } from './allows.js';
import { session } from './session.js';

/** Whether the signed-in user holds the UI permissions (reactive: read it in a template or a computed). */
export function hasPermission(required: readonly string[], any = false): boolean {
  return allows(session.user?.uiPermissions ?? [], required, any);
}
