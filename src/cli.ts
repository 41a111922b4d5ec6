#!/usr/bin/env node
// `fanion`: maintenance commands on a data folder (the server itself is `npm start`).
//   fanion verify <dataDir>          check checkpoints and WAL, report the first damaged record
//   fanion backup <dataDir> <dest>   consistent copy, safe while the server is running
// Exit status: 0 fine (verify: the folder starts, possibly after cutting a torn tail or skipping
// a damaged checkpoint, both listed), 1 damaged (it would not start) or failed, 2 usage.
import path from 'node:path';
import { backupDataDir } from './storage/backup.js';
import { verifyDataDir } from './storage/verify.js';

const USAGE = `usage:
  fanion verify <dataDir>          check checkpoints and write-ahead log segments
  fanion backup <dataDir> <dest>   copy a data folder consistently, even while the server runs`;

function verify(dir: string): number {
  const r = verifyDataDir(dir);
  const out: string[] = [`data folder ${dir}`];
  for (const c of r.checkpoints) {
    out.push(c.ok ? `  checkpoint ${path.basename(c.file)}: ok (record ${c.lsn}, ${c.events} events, ${c.bytes} bytes)` : `  checkpoint ${path.basename(c.file)}: DAMAGED: ${c.error}`);
  }
  for (const s of r.segments) {
    const range = s.records > 0 ? `records ${s.firstLsn}..${s.firstLsn + s.records - 1}` : 'no records';
    let line = `  segment ${path.basename(s.file)}: ${range}, ${s.bytes} bytes`;
    if (s.damage) line += s.damage.tail ? `; torn end at offset ${s.damage.offset} (${s.damage.reason})` : `; DAMAGED at offset ${s.damage.offset} (${s.damage.reason})`;
    out.push(line);
  }
  for (const g of r.gaps) out.push(`  gap: records ${g.from}..${g.to} are in no segment (before ${path.basename(g.before)})`);
  if (r.firstDamage) {
    const d = r.firstDamage;
    out.push(`first damaged record: ${d.file} at offset ${d.offset}: ${d.reason}${d.tail ? ' (the torn end of the newest segment: never acknowledged, cut off at start-up)' : ''}`);
  } else {
    out.push('first damaged record: none');
  }
  out.push(r.startup);
  out.push(r.startable ? 'result: OK, the folder starts' : 'result: DAMAGED, the folder does not start; restore it from a backup');
  process.stdout.write(out.join('\n') + '\n');
  return r.startable ? 0 : 1;
}

async function backup(src: string, dest: string): Promise<number> {
  const r = await backupDataDir(src, dest);
  const check = verifyDataDir(dest);
  process.stdout.write(
    `copied ${r.copied.length} files (${r.bytes} bytes) from ${src} to ${dest}` +
      (r.vanished.length ? `; ${r.vanished.length} deleted by the server meanwhile (no longer needed): ${r.vanished.join(', ')}` : '') +
      `\n${check.startup}\n${check.startable ? 'result: OK, the copy starts' : 'result: the copy does NOT start; try again'}\n`,
  );
  return check.startable ? 0 : 1;
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...args] = argv;
  if (cmd === 'verify' && args.length === 1) return verify(path.resolve(args[0]));
  if (cmd === 'backup' && args.length === 2) return backup(path.resolve(args[0]), path.resolve(args[1]));
  if (cmd === 'help' || cmd === '--help' || cmd === '-h') {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  process.stderr.write(USAGE + '\n');
  return 2;
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`fanion: ${(err as Error).message}\n`);
  process.exitCode = 1;
}
