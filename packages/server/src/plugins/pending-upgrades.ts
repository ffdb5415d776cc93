import type { PreviousCode } from './installed-code.js';

/** An upgrade of a running plugin whose new code has not started yet, with what it replaced. */
export interface PendingUpgrade {
  /** The archive whose code the upgrade put in place. */
  digest: string;
  /** The code that ran before, kept aside until the new code has started. */
  previous: PreviousCode;
  /** Replicas: the archive they shared before the upgrade, put back in the store if the upgrade rolls back. */
  previousArchive?: Buffer;
}

/**
 * The upgrades this server made that may still roll back (docs/plugins.md "Upgrades and rollback"). The management
 * API adds one when it replaces the code of a running plugin; the reconciler takes it at the new code's first start,
 * and puts the previous code back if that start fails. Kept in memory: a boot removes the code set aside
 * (installed-code.ts), so a restart in between leaves the new code in place, as an upgrade without rollback would.
 */
export class PendingUpgrades {
  private readonly byPlugin = new Map<string, PendingUpgrade>();

  has(name: string): boolean {
    return this.byPlugin.has(name);
  }

  add(name: string, upgrade: PendingUpgrade): void {
    this.byPlugin.set(name, upgrade);
  }

  /**
   * Another upgrade placed before the previous one started: the code set aside is still the code that last ran, so a
   * failure of the newest code rolls back to it.
   */
  retarget(name: string, digest: string): void {
    const upgrade = this.byPlugin.get(name);
    if (upgrade) upgrade.digest = digest;
  }

  /** The pending upgrade whose code is `digest`, no longer pending; undefined when there is none. */
  take(name: string, digest: string | undefined): PendingUpgrade | undefined {
    const upgrade = this.byPlugin.get(name);
    if (!upgrade || upgrade.digest !== digest) return undefined;
    this.byPlugin.delete(name);
    return upgrade;
  }

  /** Gives up a pending upgrade (the plugin is stopped or uninstalled first): the code set aside is removed. */
  async discard(name: string): Promise<void> {
    const upgrade = this.byPlugin.get(name);
    this.byPlugin.delete(name);
    await upgrade?.previous.discard();
  }
}
