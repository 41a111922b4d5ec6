// `npm run bench:search`: GET /api/admin/search/features over 10,000 flags (3 projects, tags on a
// third of them), in process. Each figure is a median over repeated calls and is also given as a
// ratio against a baseline measured in the same run: one pass over the same 10,000 flags that
// only lower-cases and tests each name (the least any text search must do).
import fs from 'node:fs';
import { createFeature } from '../src/concepts/features/logic.js';
import { searchFeatures, type FeatureSearch } from '../src/concepts/features/search.js';
import { openTestFanion } from '../test/helpers/fanion.js';
import { tempDataDir } from '../test/helpers/server.js';

const FLAGS = Number(process.env.BENCH_FLAGS ?? 10_000);
const actor = { name: 'bench', userId: null };

function median(fn: () => void, runs = 31): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[runs >> 1];
}

const dir = tempDataDir('fanion-bench-search-');
const fanion = await openTestFanion(dir);
try {
  const { engine } = fanion;
  for (let i = 0; i < FLAGS; i++) {
    const tags = i % 3 === 0 ? [{ type: 'simple', value: `team-${i % 7}` }] : [];
    await engine.run(actor, createFeature('default', { name: `flag-${String(i).padStart(5, '0')}`, description: `Flag number ${i}`, tags }));
  }
  const state = engine.state;
  const baseline = median(() => {
    let n = 0;
    for (const f of state.features.values()) if (f.name.toLowerCase().includes('00042')) n++;
    if (n < 0) throw new Error('unreachable');
  });
  const cases: [string, FeatureSearch][] = [
    ['first page, no filter', {}],
    ['text query', { query: '00042' }],
    ['tag filter', { tag: 'INCLUDE:simple:team-3' }],
    ['type + state + sort by name desc', { type: 'IS:release', state: 'IS:active', sortBy: 'name', sortOrder: 'desc' }],
    ['last page of 100', { offset: String(FLAGS - 100), limit: '100' }],
  ];
  console.log(`${FLAGS} flags; baseline (one pass testing each name): ${baseline.toFixed(3)} ms`);
  for (const [label, q] of cases) {
    let total = 0;
    const ms = median(() => {
      total = searchFeatures(state, q).total;
    });
    console.log(`${label.padEnd(36)} ${ms.toFixed(3).padStart(8)} ms  ${(ms / baseline).toFixed(1).padStart(6)}× baseline  (${total} matches)`);
  }
} finally {
  await fanion.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
