// How much of a runtime's answer inv reads: every answer is bounded in bytes and in entries
// before it is decoded further, so the worker's memory stays bounded whatever the runtime sends
// (the worker Pod's limit is 256 MiB). Past either bound the call fails with the reason, and
// node-remove removes nothing (exit 2).
// - 4 MiB per answer, grpc's own default (the kubelet allows 16 MiB): a node's answers are far
//   smaller (110 pods' sandboxes and containers take well under 1 MiB; 16,000 images with a tag
//   and a digest 3.6 MiB, where the entry limit below binds anyway), and larger caps let hostile
//   answers near the limit take the worker too close to its 256 MiB (16 MiB answers: 227 MB;
//   8 MiB: 166-231 MB). grpc-js checks it from the message header, before reading the message.
// - 50,000 entries per answer: decoded messages, repeated values and map entries (an image, each
//   of its tags and digests; a container, its labels, ...). Bytes alone do not bound memory: a
//   16 MiB answer of 2-byte empty images decodes to 8 million objects. 50,000 entries are about
//   16,000 images with a tag and a digest each, or 50,000 untagged ones. The peak RSS of
//   `inv node-remove` at the worst shapes is measured by test/noderemove/limits.test.ts (the
//   docs/node-remove.md gives the figures).

export const MAX_ANSWER_BYTES = 4 * 1024 * 1024;
export const MAX_ANSWER_ENTRIES = 50_000;

/** A decoded answer would exceed MAX_ANSWER_ENTRIES (thrown by the codec while decoding). */
export class TooManyEntriesError extends RangeError {
  constructor(readonly max: number) {
    super(
      `the answer has more than ${max} entries (images, tags, digests, containers, labels...), the most inv reads per answer to bound its memory`,
    );
  }
}
