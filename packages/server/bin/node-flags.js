// The Node.js flags `svc serve` runs with: `npm start`, the hand-over in bin/svc.js and the benches use these
// (package.json's start script spells them out, and a test keeps it in step).
//
// --max-semi-space-size=16: Node.js 24's V8 sizes the young generation from the heap limit, 64 MiB per semi-space
// here against Node.js 20's 16. A scavenge then copies up to four times as many survivors in one pause, and with
// hundreds of thousands of objects in the indexes those pauses showed in the reads' p99 (docs/performance.md,
// "Node.js versions").
export const SERVE_NODE_FLAGS = ['--max-semi-space-size=16'];
