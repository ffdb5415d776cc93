import { conflict, forbidden, SUPER_ROLE } from '@svc/plugin-api';
import { canBind } from '../authz/escalation.js';
import { renderRule } from '../authz/rules.js';
import type { Actor } from '../registry/admission.js';
import type { RoleService, WhatIf } from './role-service.js';

/** An admission request's `hold`: keeps a reservation until the write settles. */
type Hold = (release: () => void) => void;

/**
 * Who may manage whom: the one place that decides it. Acting on another user's account (resetting their password,
 * disabling or deleting them, changing their roles, revoking their tokens) can hand the actor that user's power, so it
 * is granting, and obeys the escalation rule of granting: the actor must hold everything the target holds (a super
 * administrator holds everything). And the service always keeps an enabled super administrator: the last enabled
 * holder of `super-role` can be neither disabled, deleted nor stripped of it, whoever asks.
 */
export class UserManagement {
  /**
   * Users that a write in flight is taking super-role or access from (counted per write): not counted as enabled
   * super administrators until that write settles, so two concurrent writes cannot each leave the other's target as
   * "the last one" and both pass.
   */
  private readonly leaving = new Map<string, number>();

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
    throw forbidden(
      `you may not ${action} user "${target}": they hold ${roles} granting what you do not hold (${lacking(result)}); ` +
        'managing a user needs every permission they have',
    );
  }

  /**
   * Refuses (403) unless `actor` may give or take role `role` through a binding to group `group`. Its members are
   * whoever the group's name reaches, an identity provider's users included, whom no one can list ahead: so the actor
   * must hold every permission of the role itself (what they could have granted), and may manage each local user the
   * group holds (`members`), as for a user named in the binding.
   */
  checkMayChangeGroup(actor: Actor, group: string, role: string, members: readonly string[], action: string): void {
    if (actor.kind !== 'user') return;
    const result = canBind(this.roles.expandFor(actor.principal), this.roles.expand([role]));
    if (!result.ok) {
      throw forbidden(
        `you may not ${action} group "${group}": role "${role}" grants what you do not hold (${lacking(result)}); ` +
          "changing a group's roles needs every permission of the role, as granting it does",
      );
    }
    for (const member of [...members].sort()) this.checkMayManage(actor, member, action);
  }

  /**
   * Refuses (409) disabling or deleting `target` when they are the last enabled super administrator; otherwise holds
   * `target` as leaving until the write settles.
   */
  checkMayLoseAccess(target: string, how: 'disabled' | 'deleted', hold?: Hold): void {
    const holders = this.enabledSuperAdministrators();
    if (holders.has(target) && holders.size === 1) throw lastSuperAdministrators([target], `cannot be ${how}`);
    if (holders.has(target)) this.holdAsLeaving([target], hold);
  }

  /** Refuses (409) setting `target`'s roles to `roles` when that strips the last enabled super administrator. */
  checkMayHoldRoles(target: string, roles: readonly string[]): void {
    const holders = this.enabledSuperAdministrators();
    if (!holders.has(target) || holders.size > 1) return;
    if (!this.roles.expand(roles).roleNames.has(SUPER_ROLE)) {
      throw lastSuperAdministrators([target], `cannot be stripped of ${SUPER_ROLE}`);
    }
  }

  /**
   * Refuses (409) a binding or role write after which no enabled user would hold `super-role` any more; otherwise holds
   * those it takes super-role from as leaving until the write settles.
   */
  checkKeepsSuperAdministrator(whatIf: WhatIf, what: string, hold?: Hold): void {
    const before = this.enabledSuperAdministrators();
    if (before.size === 0) return;
    const after = this.enabledSuperAdministrators(whatIf);
    if (after.size === 0) throw lastSuperAdministrators([...before].sort(), `would lose ${SUPER_ROLE} through ${what}`);
    this.holdAsLeaving(
      [...before].filter((u) => !after.has(u)),
      hold,
    );
  }

  private holdAsLeaving(usernames: readonly string[], hold: Hold | undefined): void {
    if (!hold || usernames.length === 0) return;
    for (const u of usernames) this.leaving.set(u, (this.leaving.get(u) ?? 0) + 1);
    hold(() => {
      for (const u of usernames) {
        const count = (this.leaving.get(u) ?? 1) - 1;
        if (count > 0) this.leaving.set(u, count);
        else this.leaving.delete(u);
      }
    });
  }

  private enabledSuperAdministrators(whatIf?: WhatIf): Set<string> {
    const holders = this.roles.holdersOf(SUPER_ROLE, whatIf);
    for (const username of holders)
      if (!this.isEnabled(username) || this.leaving.has(username)) holders.delete(username);
    return holders;
  }
}

/** What a refused grant lacks, in a few rules. */
function lacking(result: Exclude<ReturnType<typeof canBind>, { ok: true }>): string {
  const { reason, missing } = result;
  return reason ?? missing.slice(0, 3).map(renderRule).join('; ') + (missing.length > 3 ? '; …' : '');
}

function lastSuperAdministrators(usernames: string[], consequence: string) {
  const who =
    usernames.length === 1
      ? `user "${usernames[0]}" is the last enabled holder`
      : `users ${usernames.map((u) => `"${u}"`).join(', ')} are the last enabled holders`;
  return conflict(`${who} of ${SUPER_ROLE} and ${consequence}; make another user a super administrator first`);
}
