import { describe, expect, it } from 'vitest';
import type { PreviousCode } from './installed-code.js';
import { PendingUpgrades } from './pending-upgrades.js';

/** Code set aside that records what became of it. */
function setAside(events: string[], name: string): PreviousCode {
  return {
    restore: async () => void events.push(`restore ${name}`),
    discard: async () => void events.push(`discard ${name}`),
  };
}

describe('pending upgrades: the code an upgrade replaced, until the new code has started', () => {
  it('is taken only for the code the upgrade placed, once', () => {
    const upgrades = new PendingUpgrades();
    upgrades.add('flip', { digest: 'new', previous: setAside([], 'v1') });
    expect(upgrades.take('flip', 'other')).toBeUndefined();
    expect(upgrades.take('flip', 'new')?.digest).toBe('new');
    expect(upgrades.take('flip', 'new')).toBeUndefined();
    expect(upgrades.has('flip')).toBe(false);
  });

  it('follows a second upgrade placed before the first started, keeping the code that last ran', async () => {
    const events: string[] = [];
    const upgrades = new PendingUpgrades();
    upgrades.add('flip', { digest: 'v2', previous: setAside(events, 'v1') });
    upgrades.retarget('flip', 'v3');
    expect(upgrades.take('flip', 'v2')).toBeUndefined();
    await upgrades.take('flip', 'v3')?.previous.restore();
    expect(events).toEqual(['restore v1']);
  });

  it('removes the code set aside when it is given up', async () => {
    const events: string[] = [];
    const upgrades = new PendingUpgrades();
    upgrades.add('flip', { digest: 'v2', previous: setAside(events, 'v1') });
    await upgrades.discard('flip');
    await upgrades.discard('flip');
    upgrades.retarget('flip', 'v3');
    expect(events).toEqual(['discard v1']);
    expect(upgrades.has('flip')).toBe(false);
  });
});
