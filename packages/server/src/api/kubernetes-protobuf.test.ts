import { BinaryWriter, WireType } from '@bufbuild/protobuf/wire';
import { describe, expect, it } from 'vitest';
import { decodeKubernetesProtobuf, type ProtobufMessage } from './kubernetes-protobuf.js';

const MESSAGE: ProtobufMessage = { 2: ['spec', { 1: ['attributes', { 1: 'path', 2: 'verb' }] }] };

function envelope(raw: Uint8Array, apiVersion = 'example.com/v1', kind = 'Review'): Uint8Array {
  const typeMeta = new BinaryWriter().tag(1, WireType.LengthDelimited).string(apiVersion);
  typeMeta.tag(2, WireType.LengthDelimited).string(kind);
  const unknown = new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(typeMeta.finish());
  unknown.tag(2, WireType.LengthDelimited).bytes(raw);
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknown.finish()]);
}

describe('Kubernetes protobuf bodies', () => {
  it('reads the declared fields as JSON, with apiVersion and kind, skipping the others', () => {
    const attributes = new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .string('/metrics')
      .tag(2, WireType.LengthDelimited)
      .string('get')
      .tag(9, WireType.Varint)
      .int32(7);
    const review = new BinaryWriter()
      .tag(1, WireType.LengthDelimited)
      .bytes(new Uint8Array([10, 1, 120]))
      .tag(2, WireType.LengthDelimited)
      .bytes(new BinaryWriter().tag(1, WireType.LengthDelimited).bytes(attributes.finish()).finish());
    expect(decodeKubernetesProtobuf(envelope(review.finish()), MESSAGE)).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Review',
      spec: { attributes: { path: '/metrics', verb: 'get' } },
    });
  });

  it('skips a declared field sent with another wire type', () => {
    const review = new BinaryWriter().tag(2, WireType.Varint).int32(1);
    expect(decodeKubernetesProtobuf(envelope(review.finish()), MESSAGE)).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Review',
    });
  });

  it('refuses a body without the magic, or cut short, as a 400', () => {
    expect(() => decodeKubernetesProtobuf(Buffer.from('{"kind":"Review"}'), MESSAGE)).toThrow(/starts with "k8s\\0"/);
    const whole = envelope(new BinaryWriter().tag(2, WireType.LengthDelimited).bytes(new Uint8Array(40)).finish());
    expect(() => decodeKubernetesProtobuf(whole.subarray(0, whole.length - 10), MESSAGE)).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });
});
