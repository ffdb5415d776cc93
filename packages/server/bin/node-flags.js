// The Node.js flags `svc serve` runs with: bin/svc.js restarts itself with them when it was started without, and
// the benches, which start dist/cli.js themselves, pass them.
//
// --max-semi-space-size=16: Node.js 24's V8 sizes the young generation from the heap limit, 64 MiB per semi-space
// here against Node.js 20's 16. A scavenge then copies up to four times as many survivors in one pause, and with
// hundreds of thousands of objects in the indexes those pauses showed in the reads' p99; creates also cost 17-38%
// more CPU (docs/performance.md, "Node.js versions").
export const SERVE_NODE_FLAGS = ['--max-semi-space-size=16'];
