/**
 * One committed change as the watchers of its model see it. Everything derived from the change is computed at most
 * once, however many watchers receive it: the event bytes per event type (all watchers share one Buffer) and the
 * selection outcome per distinct selector.
 */
import type { ExtensionObject } from '@svc/plugin-api';
import { decodeObject } from '../registry/codec.js';
import type { ServedModel } from '../registry/model-registry.js';
import type { CommittedChange } from '../registry/object-service.js';
import type { Change, ChangeType } from '../store/types.js';
import { atRevision, encodeEvent, webSocketFrame } from './events.js';
import type { Selection } from './selection.js';
import { transition } from './transitions.js';

export class LiveChange {
  // Made on first use: most changes reach no watcher, and every write makes one LiveChange.
  private events: Map<ChangeType, Buffer> | undefined;
  private frames: Map<ChangeType, Buffer> | undefined;
  private outcomes: Map<string, ChangeType | undefined> | undefined;

  constructor(readonly change: CommittedChange) {}

  /** The same change rebuilt from the store's history (for a revision whose announcement is late). */
  static fromHistory(change: Change, served: ServedModel): LiveChange {
    const object = decodeObject(change.value);
    const base = { revision: change.revision, served };
    if (change.type === 'ADDED') return new LiveChange({ ...base, type: 'ADDED', object, bytes: change.value });
    if (change.type === 'MODIFIED') {
      const prevObject = change.prevValue ? decodeObject(change.prevValue) : undefined;
      return new LiveChange({ ...base, type: 'MODIFIED', object, prevObject, bytes: change.value });
    }
    const bytes = atRevision(object, change.revision);
    return new LiveChange({ ...base, type: 'DELETED', object: decodeObject(bytes), prevObject: object, bytes });
  }

  get revision(): number {
    return this.change.revision;
  }

  get name(): string {
    return this.change.object.metadata.name;
  }

  /** The object before the change, or undefined when it did not exist (ADDED). */
  get before(): ExtensionObject | undefined {
    const { type, prevObject, object } = this.change;
    return type === 'ADDED' ? undefined : (prevObject ?? object);
  }

  /** The event type a watcher with this selection sees, or undefined when the change is outside its selection. */
  typeFor(selection: Selection): ChangeType | undefined {
    if (selection.all) return this.change.type;
    this.outcomes ??= new Map();
    if (this.outcomes.has(selection.key)) return this.outcomes.get(selection.key);
    const { type, object } = this.change;
    const before = this.before;
    const wasIn = before !== undefined && selection.matches(before);
    const isIn = type !== 'DELETED' && selection.matches(object);
    const outcome = transition(type, wasIn, isIn);
    this.outcomes.set(selection.key, outcome);
    return outcome;
  }

  /** The event as a WebSocket frame; shared by every WebSocket watcher that receives it. */
  frame(type: ChangeType): Buffer {
    this.frames ??= new Map();
    let frame = this.frames.get(type);
    if (!frame) this.frames.set(type, (frame = webSocketFrame(this.event(type))));
    return frame;
  }

  /** The encoded event of that type; shared by every watcher that receives it. */
  event(type: ChangeType): Buffer {
    this.events ??= new Map();
    let bytes = this.events.get(type);
    if (!bytes) {
      const { change } = this;
      // An object leaving a selection is DELETED for that watcher, with its previous state at this revision.
      const objectBytes =
        type === 'DELETED' && change.type !== 'DELETED' ? atRevision(this.before!, change.revision) : change.bytes;
      bytes = encodeEvent(type, objectBytes);
      this.events.set(type, bytes);
    }
    return bytes;
  }
}
