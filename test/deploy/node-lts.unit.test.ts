// The Node.js line Fanion supports, said in four places that must agree: package.json's engines (what
// npm checks on install), the Dockerfile's default base image (what operators run), .ci/node's
// default line (what CI runs the whole suite on) and, under CI, the Node actually running this test
// (the whole suite on the image's line; the unit tier also runs on the other LTS line).
// Node 20 left support on 2026-04-30; 22 and 24 are the LTS lines.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';

const SUPPORTED = [22, 24];
const ENDED = [18, 20];

/** Whether an npm engines range of `^a.b.c` alternatives admits the major line `major`. */
function admits(range: string, major: number): boolean {
  return range.split('||').some((part) => {
    const m = /^\s*\^(\d+)\.\d+\.\d+\s*$/.exec(part);
    if (!m) throw new Error(`engines.node alternative ${JSON.stringify(part)} is not of the form ^MAJOR.MINOR.PATCH`);
    return Number(m[1]) === major;
  });
}

function imageLine(): number {
  const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
  const m = /^ARG BASE=node:(\d+)-[a-z]+-slim$/m.exec(dockerfile);
  if (!m) throw new Error('the Dockerfile has no ARG BASE=node:<line>-<debian>-slim');
  return Number(m[1]);
}

function ciLine(): number {
  const script = fs.readFileSync(path.join(ROOT, '.ci/node'), 'utf8');
  const m = /^line=\$\{1:-(\d+)\}$/m.exec(script);
  if (!m) throw new Error('.ci/node names no default line');
  return Number(m[1]);
}

t.test('engines admits the LTS lines and not the ones whose support ended', async (t) => {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  for (const line of SUPPORTED) t.ok(admits(pkg.engines.node, line), `Node ${line} is admitted`);
  for (const line of ENDED) t.notOk(admits(pkg.engines.node, line), `Node ${line} is not`);
});

t.test('the image, CI and engines name the same LTS line', async (t) => {
  const image = imageLine();
  t.ok(SUPPORTED.includes(image), `the image's base is a supported line (node ${image})`);
  t.equal(ciLine(), image, 'CI runs the suite on the line the image uses');
  const running = Number(process.versions.node.split('.')[0]);
  // CI runs the whole suite (npm test) on the image's line, and the unit tier on every supported one.
  if (process.env.CI === 'true' && process.env.npm_lifecycle_event === 'test') {
    t.equal(running, image, `under CI the whole suite runs on node ${image} (${process.version})`);
  }
  if (process.env.CI === 'true') t.ok(SUPPORTED.includes(running), `under CI every run is on a supported line (${process.version})`);
});
