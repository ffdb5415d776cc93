import type { PageInfo } from '../registry/list-query.js';

/** The list envelope, built around already-serialized items so they are never parsed again. */
export function listEnvelope(
  meta: { apiVersion: string; kind: string; revision: number },
  items: Buffer[],
  info: PageInfo,
): Buffer {
  const { first, last, hasNext, hasPrevious, totalPages, page, size, total } = info;
  const head =
    `{"apiVersion":${JSON.stringify(meta.apiVersion)},"kind":${JSON.stringify(`${meta.kind}List`)},` +
    `"metadata":{"resourceVersion":"${meta.revision}"},"page":${page},"size":${size},"total":${total},"items":[`;
  const tail = `],"first":${first},"last":${last},"hasNext":${hasNext},"hasPrevious":${hasPrevious},"totalPages":${totalPages}}`;
  const parts: Buffer[] = [Buffer.from(head)];
  items.forEach((item, i) => {
    if (i > 0) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(Buffer.from(tail));
  return Buffer.concat(parts);
}

const COMMA = Buffer.from(',');
