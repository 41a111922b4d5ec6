// Fanion's own evaluator against every case of @unleash/client-specification: each file's state
// goes in through the state import (as data, the way real exports arrive), the flags are prepared
// for `development`, and every case is evaluated server-side with the context as the file gives it.
// The one case whose strategy names a segment missing from its own state (file 15) is skipped, as in
// test/concepts/client-api/specification.test.ts: no server can store that link, so the state lacks it.
import t from 'tap';
import { importState } from '../../../src/concepts/state-io/import.js';
import type { StateDocument } from '../../../src/concepts/state-io/schema.js';
import type { Runtime } from '../../../src/concepts/evaluation/compile.js';
import { evaluate } from '../../../src/concepts/evaluation/evaluate.js';
import { PreparedFlags } from '../../../src/concepts/evaluation/prepared.js';
import { missingSegmentLinks, specFiles, stateDocument } from '../../helpers/client-spec.js';
import { openTestFanion } from '../../helpers/fanion.js';
import { tempDataDir } from '../../helpers/paths.js';
import { HOSTNAME, specContext } from '../../helpers/evaluation.js';

const runtime = (): Runtime => ({ random: Math.random, now: Date.now, hostname: HOSTNAME, volatile: false });

t.test('every case of the client specification, evaluated server-side', async (t) => {
  const files = specFiles();
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const lines: string[] = [];
  for (const file of files) {
    const fanion = await openTestFanion(tempDataDir('fanion-eval-spec-'));
    try {
      await fanion.engine.runInSlices({ name: 'spec', userId: null }, importState(stateDocument(file.state, 'development') as unknown as StateDocument, { drop: false, keep: true }));
      const prepared = new PreparedFlags(fanion.engine.state, HOSTNAME).env('development');
      const lookup = (name: string) => prepared.flags.get(name);
      let ok = 0;
      let bad = 0;
      const unstorable = new Set(missingSegmentLinks(file.state).map((l) => l.feature));
      await t.test(file.name, async (t) => {
        for (const c of file.tests) {
          if (unstorable.has(c.toggleName)) {
            skipped++;
            t.comment(`skipped "${c.description}": its strategy names a segment its own state lacks`);
            continue;
          }
          const flag = prepared.flags.get(c.toggleName);
          const got = flag ? evaluate(flag, specContext(c.context), runtime(), lookup).enabled : false;
          if (t.equal(got, c.expectedResult, c.description)) ok++;
          else bad++;
        }
        for (const c of file.variantTests) {
          const flag = prepared.flags.get(c.toggleName);
          const e = flag ? evaluate(flag, specContext(c.context), runtime(), lookup) : null;
          const v = e ? e.variant : { name: 'disabled', enabled: false };
          const got: Record<string, unknown> = { name: v.name, enabled: v.enabled };
          if ('feature_enabled' in c.expectedResult) got.feature_enabled = e?.enabled ?? false;
          if ('payload' in v || c.expectedResult.payload !== undefined) got.payload = (v as { payload?: unknown }).payload;
          if (t.same(got, c.expectedResult, c.description)) ok++;
          else bad++;
        }
      });
      passed += ok;
      failed += bad;
      lines.push(`  ${file.name.padEnd(42)} passed ${String(ok).padStart(3)}  failed ${bad}`);
    } finally {
      await fanion.close();
    }
  }
  t.comment(`Fanion's evaluator on the client specification:\n${lines.join('\n')}\n  ${'total'.padEnd(42)} passed ${String(passed).padStart(3)}  failed ${failed}  skipped ${skipped}`);
  t.equal(passed + failed + skipped, 279, 'all 279 cases');
  t.equal(skipped, 1, 'one skipped, with its reason');
  t.equal(failed, 0, 'none failed');
});
