/**
 * Kubernetes' protobuf bodies (`application/vnd.kubernetes.protobuf`), read only where a route declares the message it
 * takes (`protobuf` on the route: kubectl's typed clients, such as `kubectl auth can-i` and `kubectl auth whoami`,
 * send their bodies so and take JSON back). Every other route refuses that media type before a byte is read, as it
 * refuses any body that is not JSON. A body is the four bytes `k8s\0` and a runtime.Unknown (its TypeMeta and the
 * message's bytes); the message becomes the JSON object the same request sent as JSON would carry, so one validation
 * serves both. Wire decoding is @bufbuild/protobuf's.
 */
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { badRequest, payloadTooLarge, unsupportedMediaType } from '@svc/plugin-api';
import type { FastifyRequest } from 'fastify';
import { mediaTypeOf } from './apply-body.js';
import type { DynamicRouter } from './dynamic-router.js';

export const PROTOBUF_TYPE = 'application/vnd.kubernetes.protobuf';
/** The messages read this way are a few strings: no reason to read more. */
export const PROTOBUF_BODY_LIMIT = 64 * 1024;
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** A message's fields by number: a string field's JSON name, or a nested message's name and fields. Others skipped. */
export interface ProtobufMessage {
  [field: number]: string | readonly [name: string, message: ProtobufMessage];
}

/** runtime.Unknown: TypeMeta (apiVersion, kind), then the raw message. */
const UNKNOWN: ProtobufMessage = { 1: ['typeMeta', { 1: 'apiVersion', 2: 'kind' }], 2: 'raw' };

/** The refusal of a protobuf body sent to a route that reads none, before it is read (app.ts's body checks). */
export function protobufElsewhere<Ctx>(
  router: Pick<DynamicRouter<Ctx>, 'find'>,
  request: FastifyRequest,
): Error | undefined {
  if (mediaTypeOf(request) !== PROTOBUF_TYPE) return undefined;
  if (router.find(request.method, request.target.routePath)?.route.protobuf) return undefined;
  return unsupportedMediaType(
    `${PROTOBUF_TYPE} is read only by Kubernetes' review routes, not by ${request.method} ${request.target.path}`,
  );
}

/** The body parser of PROTOBUF_TYPE (registered with `parseAs: 'buffer'`): the route's message as JSON. */
export function protobufBodyParser<Ctx>(router: Pick<DynamicRouter<Ctx>, 'find'>) {
  return async (request: FastifyRequest, body: string | Buffer): Promise<unknown> => {
    const bytes = body as Buffer;
    if (bytes.length > PROTOBUF_BODY_LIMIT) {
      throw payloadTooLarge(`a ${PROTOBUF_TYPE} body is limited to ${PROTOBUF_BODY_LIMIT / 1024} KiB`);
    }
    const message = router.find(request.method, request.target.routePath)?.route.protobuf;
    if (!message) throw unsupportedMediaType(`${PROTOBUF_TYPE} is not read by this route`);
    return decodeKubernetesProtobuf(bytes, message);
  };
}

/** `k8s\0` + runtime.Unknown holding `message`, as the JSON object it stands for (apiVersion and kind included). */
export function decodeKubernetesProtobuf(bytes: Uint8Array, message: ProtobufMessage): Record<string, unknown> {
  if (bytes.length < MAGIC.length || !MAGIC.equals(bytes.subarray(0, MAGIC.length))) {
    throw badRequest(`a ${PROTOBUF_TYPE} body starts with "k8s\\0"`);
  }
  try {
    const envelope = decodeMessage(bytes.subarray(MAGIC.length), UNKNOWN, { raw: true });
    const typeMeta = (envelope.typeMeta ?? {}) as Record<string, unknown>;
    const raw = envelope.raw instanceof Uint8Array ? envelope.raw : new Uint8Array();
    return { ...typeMeta, ...decodeMessage(raw, message) };
  } catch (error) {
    throw badRequest(`the ${PROTOBUF_TYPE} body is not a valid message: ${(error as Error).message}`);
  }
}

function decodeMessage(
  bytes: Uint8Array,
  message: ProtobufMessage,
  keepBytes: { raw?: boolean } = {},
  depth = 0,
): Record<string, unknown> {
  if (depth > 8) throw new Error('messages nested too deep');
  const reader = new BinaryReader(bytes);
  const result: Record<string, unknown> = {};
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    const shape = message[field];
    if (shape === undefined || wireType !== WireType.LengthDelimited) {
      reader.skip(wireType, field);
    } else if (typeof shape === 'string') {
      result[shape] = keepBytes[shape as 'raw'] ? reader.bytes() : reader.string();
    } else {
      result[shape[0]] = decodeMessage(reader.bytes(), shape[1], {}, depth + 1);
    }
  }
  return result;
}
