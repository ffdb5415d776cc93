import { isApiError } from '@svc/plugin-api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServedModel } from './model-registry.js';
import type { ObjectService } from './object-service.js';
import { type Fixture, openFixture, openSecondWriter, widget } from './object-service-fixtures.suite.js';
import { LostRace } from './write-errors.js';

/**
 * A write that loses a race: another writer (a replica, here a second service on the same store) commits the object
 * between the write's read and its commit. The fixture's admission check makes that happen on cue.
 */
let f: Fixture;
let other: { service: ObjectService; widgets: ServedModel };
/** How many times a write of this service reached admission. */
let admitted: number;
/** The other writer's write, made from inside this service's admission while it returns true. */
let interfere: (attempt: number) => boolean;

beforeEach(async () => {
  f = await openFixture();
  await f.service.create(f.widgets, widget('w1', { size: 1 }));
  other = await openSecondWriter(f);
  admitted = 0;
  interfere = () => false;
  f.service.admission.add(f.widgets.model.resource, async () => {
    admitted++;
    if (!interfere(admitted)) return;
    await other.service.patch(other.widgets, 'w1', (current) => ({
      ...current,
      metadata: { ...current.metadata, labels: { ...current.metadata.labels, [`other-${admitted}`]: 'yes' } },
    }));
  });
});
afterEach(() => f.close());

describe('a write that loses a race to another writer', () => {
  it('is a patch applied again to the state the other writer committed', async () => {
    interfere = (attempt) => attempt === 1;
    const { object } = await f.service.patch(f.widgets, 'w1', (current) => ({ ...current, spec: { size: 2 } }));
    expect(admitted).toBe(2);
    expect(object.spec).toEqual({ size: 2 });
    expect(object.metadata.labels).toEqual({ 'other-1': 'yes' });
    expect(object.metadata.version).toBe(2);
    expect(await f.service.get(f.widgets, 'w1')).toEqual(object);
  });

  it('is a LostRace, a 409, once a patch has lost five times', async () => {
    interfere = () => true;
    const lost = await f.service.patch(f.widgets, 'w1', (current) => current).catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(LostRace);
    expect(isApiError(lost) && [lost.status, lost.reason, lost.detail]).toEqual([
      409,
      'Conflict',
      'Widget "w1" was changed by another writer; get it again and retry',
    ]);
    expect(admitted).toBe(5);
  });

  it('is a LostRace at once for an update, which pins the version it read', async () => {
    interfere = (attempt) => attempt === 1;
    const current = await f.service.get(f.widgets, 'w1');
    const lost = await f.service
      .update(f.widgets, 'w1', { ...current, spec: { size: 3 } })
      .catch((error: unknown) => error);
    expect(lost).toBeInstanceOf(LostRace);
    expect(admitted).toBe(1);
    expect((await f.service.get(f.widgets, 'w1')).spec).toEqual({ size: 1 });
  });

  it('leaves an unrelated failure alone: a patch refused by admission is not tried again', async () => {
    interfere = () => {
      throw new Error('admission broke');
    };
    await expect(f.service.patch(f.widgets, 'w1', (current) => current)).rejects.toThrow('admission broke');
    expect(admitted).toBe(1);
  });
});
