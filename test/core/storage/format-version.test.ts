// What a data folder written by a newer Fanion does to this one: a WAL record or a checkpoint in a
// format version above the one this build reads stops start-up with status 2 and a message naming
// the file, the record and the versions, instead of being taken for damage (a torn tail would be
// cut off, a checkpoint passed over) or misread. Data of the current format still starts.
import fs from 'node:fs';
import path from 'node:path';
import { Decoder, Encoder } from '@msgpack/msgpack';
import t, { type Test } from 'tap';
import { runCli } from '../../helpers/cli.js';
import { client, spawnServer, startRefused, tempDataDir } from '../../helpers/server.js';
import { frame, readFrame } from '../../../src/core/log/wal/frame.js';
import { listSegments } from '../../../src/core/log/wal/scan.js';
import { listCheckpoints } from '../../../src/core/log/wal/checkpoint.js';

const P = '/api/admin/projects/default/features';

async function startExpectingExit(dataDir: string): Promise<{ code: number | null; output: string }> {
  return startRefused({ dataDir });
}

/** A data folder with `flags` flags made through HTTP; a checkpoint every 2 records when asked. */
async function folderWith(t: Test, flags: number, env: Record<string, string> = {}): Promise<string> {
  const dataDir = tempDataDir('fanion-format-');
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const s = await spawnServer({ dataDir, env });
  for (let i = 0; i < flags; i++) t.equal((await client(s.url)('POST', P, { name: `flag-${i}` })).status, 201);
  t.equal(await s.stop(), 0);
  return dataDir;
}

async function flagsOf(dataDir: string): Promise<string[]> {
  const s = await spawnServer({ dataDir });
  try {
    const res = await client(s.url)('GET', P);
    return (res.json.features as { name: string }[]).map((f) => f.name).sort();
  } finally {
    await s.stop();
  }
}

t.test('a WAL record of a newer format version stops start-up with status 2, naming the file, the record and the versions', async (t) => {
  const dataDir = await folderWith(t, 2);
  const segment = listSegments(dataDir).at(-1)!.file;
  const before = fs.readFileSync(segment);
  let lsn = 0;
  for (let at = 0, r = readFrame(before, 0); r.kind === 'ok'; at = r.next, r = readFrame(before, at)) lsn++;
  // A record as a later format might write it: its version first, then whatever that version holds.
  fs.appendFileSync(segment, frame(new Encoder().encode([3, lsn + 1, { something: 'new' }])));
  const { code, output } = await startExpectingExit(dataDir);
  t.equal(code, 2, 'exit status 2');
  t.match(output, new RegExp(`record ${lsn + 1} in [^ ]*${path.basename(segment)}: format version 3, written by a newer Fanion; this Fanion reads versions up to 2`));
  t.equal(fs.statSync(segment).size, before.length + 8 + new Encoder().encode([3, lsn + 1, { something: 'new' }]).length, 'the record was not cut off as a torn tail');
  fs.writeFileSync(segment, before);
  t.strictSame(await flagsOf(dataDir), ['flag-0', 'flag-1'], 'the same folder without it starts, with its flags');
});

t.test('a checkpoint of a newer format version stops start-up with status 2 instead of being passed over', async (t) => {
  const dataDir = await folderWith(t, 3, { CHECKPOINT_RECORDS: '2' });
  const checkpoint = listCheckpoints(dataDir).at(-1);
  if (!t.ok(checkpoint, 'the server wrote a checkpoint')) return;
  const bytes = fs.readFileSync(checkpoint!.file);
  const first = readFrame(bytes, 0);
  if (first.kind !== 'ok') throw new Error('no header frame');
  const header = new Decoder().decode(first.payload) as Record<string, unknown>;
  t.equal(header.version, 2, 'this build writes version 2');
  const newer = Buffer.concat([frame(new Encoder().encode({ ...header, version: 7 })), bytes.subarray(first.next)]);
  fs.writeFileSync(checkpoint!.file, newer);
  const { code, output } = await startExpectingExit(dataDir);
  t.equal(code, 2, 'exit status 2');
  t.match(output, new RegExp(`${path.basename(checkpoint!.file)}: format version 7, written by a newer Fanion; this Fanion reads versions up to 2`));
  const verify = await runCli(['verify', dataDir], { timeoutMs: 20_000 });
  t.equal(verify.code, 1, 'fanion verify: the folder would not start');
  t.match(verify.stdout, /start-up would refuse: .*format version 7, written by a newer Fanion/, 'and says why');
  fs.writeFileSync(checkpoint!.file, bytes);
  t.strictSame(await flagsOf(dataDir), ['flag-0', 'flag-1', 'flag-2'], 'with the checkpoint as written, the folder starts');
});
