import { it } from 'vitest';
import { naturalCompare } from './natural-compare.js';
it('nc', () => {
  const N = 1000;
  const names = Array.from({ length: N }, (_, i) => `person-${(i * 7919) % 100000}`);
  const ts = Array.from({ length: N }, (_, i) => new Date(Date.UTC(2026, 0, 1) + i * 7777777).toISOString());
  for (const [label, arr] of [['names', names], ['timestamps', ts]] as const) {
    for (const [cl, cmp] of [['natural', naturalCompare], ['plain <', (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)]] as const) {
      let best = Infinity; let s = 0;
      for (let r = 0; r < 5; r++) {
        const t = process.hrtime.bigint();
        for (let i = 0; i < N; i++) for (let j = 0; j < 100; j++) s += cmp(arr[i]!, arr[(i + j * 7) % N]!);
        best = Math.min(best, Number(process.hrtime.bigint() - t) / (N * 100));
      }
      console.log(label, cl, best.toFixed(1), 'ns/compare', s);
    }
  }
});
