/**
 * The wire form of watch events (docs/api.md "Watch"): one JSON object per event, `{"type":…,"object":…}`, followed by
 * a newline. The same bytes serve both transports: a WebSocket text message (the newline is harmless JSON whitespace)
 * and one line of the `?watch=true` stream. Built around the object's stored bytes, so an object is never re-serialized.
 */
import { type ApiError, type ExtensionObject, KIND, type WatchStatus } from '@svc/plugin-api';

export type EventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

const HEADS = new Map<EventType, Buffer>(
  (['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR'] as const).map((type) => [
    type,
    Buffer.from(`{"type":"${type}","object":`),
  ]),
);
const TAIL = Buffer.from('}\n');

/** One event around already-serialized object bytes. */
export function encodeEvent(type: EventType, objectBytes: Buffer): Buffer {
  const head = HEADS.get(type)!;
  const out = Buffer.allocUnsafe(head.length + objectBytes.length + TAIL.length);
  head.copy(out, 0);
  objectBytes.copy(out, head.length);
  TAIL.copy(out, head.length + objectBytes.length);
  return out;
}

/**
 * An object as of another revision: a DELETED event carries the object's last state with the deletion's revision in
 * `metadata.resourceVersion`, so a client resuming from it continues after the deletion.
 */
export function atRevision(object: ExtensionObject, revision: number): Buffer {
  return Buffer.from(
    JSON.stringify({ ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } }),
  );
}

/** A BOOKMARK: an object with only its kind and the latest revision, so a client can resume from there. */
export function bookmarkEvent(model: { apiVersion: string; kind: string }, revision: number): Buffer {
  const object = { apiVersion: model.apiVersion, kind: model.kind, metadata: { resourceVersion: String(revision) } };
  return encodeEvent('BOOKMARK', Buffer.from(JSON.stringify(object)));
}

export type { WatchStatus };

/** The Kubernetes Status object an ERROR event carries. */
export function statusObject(code: number, reason: string, message: string): WatchStatus {
  return { kind: KIND.Status, apiVersion: 'v1', status: 'Failure', code, reason, message };
}

/** An API error as the Status an ERROR event carries: what a stream says once it can no longer answer with a status. */
export function statusOfError(error: ApiError): WatchStatus {
  return statusObject(error.status, error.reason, error.message);
}

export function errorEvent(status: WatchStatus): Buffer {
  return encodeEvent('ERROR', Buffer.from(JSON.stringify(status)));
}

/** The requested revision is older than the retained history: the client re-lists (docs/api.md "Watch"). */
export function expiredStatus(requested: number, oldest: number): WatchStatus {
  return statusObject(
    410,
    'Expired',
    `too old resource version: ${requested} (the oldest retained is ${oldest}); ` +
      "list again and watch from the list's metadata.resourceVersion",
  );
}

/**
 * An event as a complete WebSocket text frame (server frames are unmasked, so the frame is the same for every
 * client): built once per event and written as is to every watching socket.
 */
export function webSocketFrame(event: Buffer): Buffer {
  const length = event.length;
  const headerLength = length < 126 ? 2 : length < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + length);
  frame[0] = 0x81; // FIN, text
  if (length < 126) frame[1] = length;
  else if (length < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  event.copy(frame, headerLength);
  return frame;
}
