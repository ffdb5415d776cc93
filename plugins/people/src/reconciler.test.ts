import { describe, expect, it } from 'vitest';
import type { Person } from './person.js';
import { ageGroupOf, nextStatus, type PersonStatus } from './reconciler.js';

const NOW = new Date('2026-01-02T03:04:05.000Z');
const person = (age: number | undefined, status?: Partial<PersonStatus>, version = 3): Person => ({
  apiVersion: 'people.svc.run/v1alpha1',
  kind: 'Person',
  metadata: { name: 'p', version },
  spec: { name: 'Pat', ...(age === undefined ? {} : { age }) },
  ...(status ? { status: status as Record<string, unknown> } : {}),
});

describe('the person controller', () => {
  it.each([
    [undefined, 'unknown'],
    [0, 'child'],
    [12, 'child'],
    [13, 'teen'],
    [19, 'teen'],
    [20, 'adult'],
    [64, 'adult'],
    [65, 'senior'],
    [150, 'senior'],
  ])('puts age %s in age group %s', (age, group) => {
    expect(ageGroupOf(age)).toBe(group);
  });

  it('computes a first status with a Ready condition and the observed version', () => {
    expect(nextStatus(person(30), NOW)).toEqual({
      ageGroup: 'adult',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'AgeGroupComputed',
          message: 'Pat is in age group adult',
          lastTransitionTime: NOW.toISOString(),
        },
      ],
      observedVersion: 3,
    });
  });

  it('writes nothing when the status already says so, whatever the version', () => {
    const current = nextStatus(person(30), NOW)!;
    expect(nextStatus(person(31, current, 9), new Date())).toBeUndefined();
  });

  it('keeps lastTransitionTime when Ready stays True, and records the new observed version', () => {
    const current = nextStatus(person(30), NOW)!;
    const next = nextStatus(person(70, current, 8), new Date('2026-02-01T00:00:00.000Z'))!;
    expect(next.ageGroup).toBe('senior');
    expect(next.observedVersion).toBe(8);
    expect(next.conditions[0]!.lastTransitionTime).toBe(NOW.toISOString());
  });
});
