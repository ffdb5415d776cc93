// pg's parameter encoding (postgres-batch.ts writes a group's arrays with it); @types/pg does not declare the module.
declare module 'pg/lib/utils.js' {
  /** A JS value as pg sends it as a text parameter: an array as a `{…}` literal, a Buffer as itself. */
  export function prepareValue(value: unknown): string | Buffer | null;
}
