import { conflict, forbidden } from '@svc/plugin-api';
import { canBind } from '../authz/escalation.js';
import { SUPER_ROLE } from '../authz/roles.js';
import { renderRule } from '../authz/rules.js';
import type { Actor } from '../registry/admission.js';
import type { RoleService, WhatIf } from './role-service.js';

/**
 * Who may manage whom: the one place that decides it. Acting on another user's account (resetting their password,
 * disabling or deleting them, changing their roles, revoking their tokens) can hand the actor that user's power, so it
 * is granting, and obeys the escalation rule of granting: the actor must hold everything the target holds (a super
 * administrator holds everything). And the service always keeps an enabled super administrator: the last enabled
 * holder of `super-role` can be neither disabled, deleted nor stripped of it, whoever asks.
 */
export class UserManagement {
  constructor(
    private readonly roles: RoleService,
    /** Whether a user exists, is not disabled and is not being deleted (authentication knows). */
    private readonly isEnabled: (username: string) => boolean,
  ) {}

  /**
   * Refuses (403) unless `actor` may `action` user `target`. The service and plugins act as themselves and pass; a
   * user passes when the target's expanded permissions are a subset of their own. `action` reads "reset the password
   * of", "delete", ….
   */
  checkMayManage(actor: Actor, target: string, action: string): void {
    if (actor.kind !== 'user') return;
    const held = this.roles.expandFor(actor.principal);
    const theirs = this.roles.expand(this.roles.startingRoles({ username: target, via: 'session' }));
    const result = canBind(held, theirs);
    if (result.ok) return;
    // Name the target's roles that carry what the actor lacks, so the reason says what stands in the way.
    const beyond = this.roles.boundRoles(target).filter((role) => !canBind(held, this.roles.expand([role])).ok);
    const roles =
      beyond.length > 0 ? `role${beyond.length > 1 ? 's' : ''} ${beyond.map((r) => `"${r}"`).join(', ')}` : 'roles';
    const missing = result.missing.slice(0, 3).map(renderRule).join('; ') + (result.missing.length > 3 ? '; …' : '');
    throw forbidden(
      `you may not ${action} user "${target}": they hold ${roles} granting what you do not hold (${missing}); ` +
        'managing a user needs every permission they have',
    );
  }

  /** Refuses (409) disabling or deleting `target` when they are the last enabled super administrator. */
  checkMayLoseAccess(target: string, how: 'disabled' | 'deleted'): void {
    const holders = this.enabledSuperAdministrators();
    if (holders.has(target) && holders.size === 1) throw lastSuperAdministrators([target], `cannot be ${how}`);
  }

  /** Refuses (409) setting `target`'s roles to `roles` when that strips the last enabled super administrator. */
  checkMayHoldRoles(target: string, roles: readonly string[]): void {
    const holders = this.enabledSuperAdministrators();
    if (!holders.has(target) || holders.size > 1) return;
    if (!this.roles.expand(roles).roleNames.has(SUPER_ROLE)) {
      throw lastSuperAdministrators([target], `cannot be stripped of ${SUPER_ROLE}`);
    }
  }

  /** Refuses (409) a binding or role write after which no enabled user would hold `super-role` any more. */
  checkKeepsSuperAdministrator(whatIf: WhatIf, what: string): void {
    const before = this.enabledSuperAdministrators();
    if (before.size === 0) return;
    const after = this.enabledSuperAdministrators(whatIf);
    if (after.size > 0) return;
    throw lastSuperAdministrators([...before].sort(), `would lose ${SUPER_ROLE} through ${what}`);
  }

  private enabledSuperAdministrators(whatIf?: WhatIf): Set<string> {
    const holders = this.roles.holdersOf(SUPER_ROLE, whatIf);
    for (const username of holders) if (!this.isEnabled(username)) holders.delete(username);
    return holders;
  }
}

function lastSuperAdministrators(usernames: string[], consequence: string) {
  const who =
    usernames.length === 1
      ? `user "${usernames[0]}" is the last enabled holder`
      : `users ${usernames.map((u) => `"${u}"`).join(', ')} are the last enabled holders`;
  return conflict(`${who} of ${SUPER_ROLE} and ${consequence}; make another user a super administrator first`);
}
