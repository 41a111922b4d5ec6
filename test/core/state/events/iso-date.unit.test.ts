// The fast timestamp paths against Date itself.
import t from 'tap';
import { isoMs, isoOf } from '../../../../src/core/state/events/iso-date.js';

t.test('isoMs gives the epoch ms exactly when toISOString would print the string, NaN otherwise', async (t) => {
  const samples = [0, 1, 999, 86_399_999, 86_400_000, Date.parse('2026-11-22T12:40:43.478Z'), Date.parse('1969-12-31T23:59:59.999Z'), Date.parse('9999-12-31T23:59:59.999Z'), -1e12];
  for (let i = 0; i < 2000; i++) samples.push(Math.floor(Date.parse('2026-01-01T00:00:00Z') + i * 7_777_777.7));
  for (const ms of samples) {
    const s = new Date(ms).toISOString();
    t.equal(isoMs(s), ms, s);
    t.equal(isoOf(ms), s, s);
  }
  // Same day as the cached one, but not what toISOString prints.
  for (const odd of ['2026-11-22T12:40:43Z', '2026-11-22T24:00:00.000Z', '2026-11-22T12:60:00.000Z', '2026-11-22T12:40:61.000Z', '2026-11-22T1a:40:43.478Z', '2026-11-22T12:40:43.478+', '2026-11-22 12:40:43.478Z', 'not a date', '']) {
    isoMs('2026-11-22T00:00:00.000Z');
    t.ok(Number.isNaN(isoMs(odd)), odd);
  }
});
