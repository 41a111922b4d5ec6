// The shared bodies of the newest revision: one Buffer per distinct text, found by key without a
// rebuild, by content across keys; forgotten at the next revision, and kept within a byte budget.
import t from 'tap';
import { SharedBodies } from '../../../src/concepts/push/bodies.js';

t.test('one Buffer per text: by key without building again, by content across keys', async (t) => {
  const bodies = new SharedBodies();
  let builds = 0;
  const build = (text: string | null) => () => {
    builds++;
    return text;
  };
  const a = bodies.get(7, 'h[all]', build('{"events":[1]}'))!;
  t.equal(a.toString(), '{"events":[1]}');
  t.equal(bodies.get(7, 'h[all]', build('never built')), a, 'the same key: the same Buffer');
  t.equal(builds, 1, 'built once');
  t.equal(bodies.get(7, 'h[another filter]', build('{"events":[1]}')), a, 'another key whose text is the same: the same Buffer');
  t.not(bodies.get(7, 'h[third]', build('{"events":[2]}')), a, 'another text: its own');
  t.equal(bodies.get(7, 'c5[all]', build(null)), null, 'nothing to send');
  t.equal(bodies.get(7, 'c5[all]', build('never built')), null, '… remembered as such');
  const later = bodies.get(8, 'h[all]', build('{"events":[1]}'));
  t.not(later, a, 'a new revision builds again, even the same text');
  bodies.clear();
  t.not(bodies.get(8, 'h[all]', build('{"events":[1]}')), later, 'after clear(), too');
});

t.test('past the byte budget the oldest bodies go, with the keys that lead to them', async (t) => {
  const bodies = new SharedBodies(100);
  const text = (c: string) => () => c.repeat(40);
  const a = bodies.get(1, 'a', text('a'))!;
  const b = bodies.get(1, 'b', text('b'))!;
  t.equal(bodies.get(1, 'a', text('x')), a);
  bodies.get(1, 'c', text('c'));
  t.not(bodies.get(1, 'a', text('a')), a, 'the oldest went, key and all: built again');
  t.equal(bodies.get(1, 'b2', text('b'))!.length, 40);
  t.not(bodies.get(1, 'b2', text('b')), b, 'b went when a came back');
  const huge = bodies.get(1, 'huge', () => 'h'.repeat(500))!;
  t.equal(bodies.get(1, 'huge2', () => 'h'.repeat(500)), huge, 'one larger than the budget is still shared, alone');
});
