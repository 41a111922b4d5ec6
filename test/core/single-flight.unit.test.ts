// FreshFlight: callers share runs, but only a run that starts after their call (a run already in
// progress may have read what was there before the caller came).
import t from 'tap';
import { FreshFlight } from '../../src/core/single-flight.js';

/** A job whose runs the test ends one by one; each run's value is its number. */
function controlled() {
  const ends: (() => void)[] = [];
  let runs = 0;
  const flight = new FreshFlight(() => {
    const n = ++runs;
    return new Promise<number>((resolve) => ends.push(() => resolve(n)));
  });
  const tick = () => new Promise((r) => setImmediate(r));
  return { flight, ends, runs: () => runs, tick };
}

t.test('a caller never gets the value of a run that started before its call', async (t) => {
  const { flight, ends, runs, tick } = controlled();
  const first = flight.run();
  t.equal(runs(), 1, 'the first caller starts a run');
  const second = flight.run();
  const third = flight.run();
  t.equal(runs(), 1, 'callers during a run do not start another beside it');
  ends[0]();
  t.equal(await first, 1, 'the first caller gets its run');
  await tick();
  t.equal(runs(), 2, 'the next run starts when the one in progress ends');
  const fourth = flight.run();
  ends[1]();
  t.equal(await second, 2, 'a caller that came during run 1 gets run 2, not run 1');
  t.equal(await third, 2, 'and shares it with the others who came meanwhile');
  await tick();
  t.equal(runs(), 3, 'one more run for the caller who came during run 2');
  ends[2]();
  t.equal(await fourth, 3, 'who gets run 3');
  t.equal(flight.started, 3, 'three runs for four callers');
});

t.test('a failed run fails its callers; the next run still starts for those who came during it', async (t) => {
  let runs = 0;
  const ends: ((ok: boolean) => void)[] = [];
  const flight = new FreshFlight(() => {
    const n = ++runs;
    return new Promise<number>((resolve, reject) => ends.push((ok) => (ok ? resolve(n) : reject(new Error(`run ${n} failed`)))));
  });
  const first = flight.run();
  const second = flight.run();
  ends[0](false);
  await t.rejects(first, /run 1 failed/);
  await new Promise((r) => setImmediate(r));
  ends[1](true);
  t.equal(await second, 2);
});
