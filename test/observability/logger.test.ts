// Unit tests of the structured logger: JSON lines, text format, levels, child fields.
import assert from 'node:assert/strict';
import { createLogger, parseLogFormat, parseLogLevel } from '../../src/core/observability/logger.js';

function capture() {
  const lines: string[] = [];
  return { lines, stream: { write: (s: string) => lines.push(s) } };
}
const now = () => new Date('2025-01-02T03:04:05.678Z');

describe('logger', () => {
  it('writes one JSON object per line with ts, level, msg and fields', () => {
    const { lines, stream } = capture();
    const log = createLogger({ stream, now });
    log.info('rebuilt namespace', { namespace: 'team-a', images: 3, skipped: undefined });
    assert.equal(lines.length, 1);
    assert.ok(lines[0]!.endsWith('\n') && !lines[0]!.slice(0, -1).includes('\n'));
    assert.deepEqual(JSON.parse(lines[0]!), {
      ts: '2025-01-02T03:04:05.678Z',
      level: 'info',
      msg: 'rebuilt namespace',
      namespace: 'team-a',
      images: 3,
    });
    assert.ok(lines[0]!.startsWith('{"ts":'), 'ts comes first');
  });

  it('filters by minimum level', () => {
    const { lines, stream } = capture();
    const log = createLogger({ stream, now, level: 'warn' });
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    assert.deepEqual(
      lines.map((l) => (JSON.parse(l) as { level: string }).level),
      ['warn', 'error'],
    );
    assert.equal(log.isLevelEnabled('info'), false);
    assert.equal(createLogger({ stream, level: 'debug' }).isLevelEnabled('debug'), true);
  });

  it('child() adds fields; call fields win; reserved keys are not overwritten', () => {
    const { lines, stream } = capture();
    const log = createLogger({ stream, now, fields: { component: 'watch' } }).child({
      namespace: 'a',
      worker: 1,
    });
    log.warn('retrying', { worker: 2, msg: 'field named msg', level: 'x' });
    assert.deepEqual(JSON.parse(lines[0]!), {
      ts: '2025-01-02T03:04:05.678Z',
      level: 'warn',
      msg: 'retrying',
      component: 'watch',
      namespace: 'a',
      worker: 2,
      'field.msg': 'field named msg',
      'field.level': 'x',
    });
  });

  it('serialises errors, bigints and cycles without throwing', () => {
    const { lines, stream } = capture();
    const err = Object.assign(new Error('conflict'), { code: 409 });
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    createLogger({ stream, now }).error('failed', { err, big: 10n, cyclic });
    const rec = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.deepEqual(rec.err, { name: 'Error', message: 'conflict', code: 409 });
    assert.equal(rec.big, '10');
    assert.deepEqual(rec.cyclic, { a: 1, self: '[Circular]' });
  });

  it('writes human-readable text lines with --log-format text', () => {
    const { lines, stream } = capture();
    const log = createLogger({ stream, now, format: 'text', level: 'debug' });
    log.debug('queue drained', { depth: 0, namespace: 'team-a', reason: 'two words', ok: true });
    assert.equal(
      lines[0],
      '2025-01-02T03:04:05.678Z DEBUG queue drained depth=0 namespace=team-a reason="two words" ok=true\n',
    );
  });

  it('parses levels and formats, rejecting bad values with a clear message', () => {
    assert.equal(parseLogLevel('WARN'), 'warn');
    assert.equal(parseLogFormat('text'), 'text');
    assert.throws(
      () => parseLogLevel('verbose'),
      /invalid log level "verbose": expected one of debug, info, warn, error/,
    );
    assert.throws(() => parseLogFormat('xml'), /invalid log format "xml"/);
  });

  it('never throws when the stream fails', () => {
    const log = createLogger({
      stream: {
        write: () => {
          throw new Error('EPIPE');
        },
      },
    });
    assert.doesNotThrow(() => log.error('x'));
  });
});
