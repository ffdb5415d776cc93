import { it } from 'vitest';
import type { ExtensionObject } from '@svc/plugin-api';
import { ModelIndex } from './model-index.js';
import { compareCount } from './natural-compare.js';
const N = 100_000;
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x80000000;
it('count', () => {
  const objects = Array.from({ length: N }, (_, i) => ({ apiVersion: 'v', kind: 'P', metadata: { name: `person-${(i * 7919) % N}`, creationTimestamp: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(), labels: { 'people.svc.run/team': `team-${i % 10}`, 'people.svc.run/tier': i % 3 === 0 ? 'gold' : 'basic' } }, spec: { name: `Person Number ${i}`, age: Math.floor(random() * 151), gender: random() < 0.5 ? 'MALE' : 'FEMALE' } }) as ExtensionObject);
  for (const specs of [[], [{ name: 'spec.name', unique: true }], [{ name: 'spec.age' }], [{ name: 'spec.gender' }]]) {
    const ix = new ModelIndex(specs, 'P');
    compareCount.n = 0;
    const t = Date.now();
    for (const o of objects) ix.apply(undefined, o);
    console.log(JSON.stringify(specs), (compareCount.n / N).toFixed(1), 'compares/object', Date.now() - t, 'ms');
  }
});
