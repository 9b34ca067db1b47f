// Keeps an image ref that arrived from someone else's object short enough for a message. A
// Pod can carry a 200,000-character "image"; an Event or a warning line that repeats it is
// useless and can break what reads it. The start stays readable, and the hash tells two long
// values apart.
import { createHash } from 'node:crypto';

export const MAX_SHOWN_REF = 200;

/** `s` itself when short; otherwise its start, its length and a short sha256. */
export function abbreviate(s: string, max = MAX_SHOWN_REF): string {
  if (s.length <= max) return s;
  const hash = createHash('sha256').update(s).digest('hex').slice(0, 12);
  const tail = `… (${s.length} characters, sha256 ${hash})`;
  return s.slice(0, Math.max(16, max - tail.length)) + tail;
}

/** The API server's limit on an Event note in events.k8s.io; core Events stay within it too. */
export const MAX_EVENT_MESSAGE = 1024;

export function limitMessage(s: string, max = MAX_EVENT_MESSAGE): string {
  return s.length <= max ? s : `${s.slice(0, max - 1)}…`;
}
