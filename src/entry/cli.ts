#!/usr/bin/env node
// `fanion`: maintenance commands on a data folder (the server itself is `npm start`).
//   fanion verify <dataDir>          check checkpoints and WAL, report the first damaged record
//   fanion backup <dataDir> <dest>   consistent copy, safe while the server is running
//   fanion migrate --from <url> --token <admin token> [--data <dir>] [--merge] [--v2-secrets <file>]
//                                    a whole running Unleash into a data folder, as one change
//   fanion --version                 the version of this Fanion
// Exit status: 0 fine (verify: the folder starts, possibly after cutting a torn tail or skipping
// a damaged checkpoint, both listed), 1 damaged (it would not start) or failed, 2 usage.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfig } from '../core/config.js';
import { createLogger } from '../core/logger.js';
import { printableLines } from '../modes/migrate/printable.js';
import { migrate } from '../modes/migrate/run.js';
import { backupDataDir } from '../core/storage/backup.js';
import { verifyDataDir } from '../core/storage/verify.js';
import { FANION_VERSION } from '../core/version.js';

const USAGE = `usage:
  fanion verify <dataDir>          check checkpoints and write-ahead log segments
  fanion backup <dataDir> <dest>   copy a data folder consistently, even while the server runs
  fanion migrate --from <url> --token <token> [--data <dir>] [--merge] [--v2-secrets <file>]
                                   bring a whole running Unleash (7.x, 8.x) into a data folder:
                                   --token an admin API token (or UNLEASH_TOKEN), --data defaults
                                   to DATA_DIR or ./data, --merge into a folder that holds data
  fanion --version                 print the version of this Fanion`;

class UsageError extends Error {}

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

/** One line per point of progress on stderr; the report on stdout. */
async function migrateCommand(args: string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: { from: { type: 'string' }, token: { type: 'string' }, data: { type: 'string' }, merge: { type: 'boolean' }, 'v2-secrets': { type: 'string' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const token = (values.token as string | undefined) ?? process.env.UNLEASH_TOKEN;
  if (!values.from) throw new UsageError('fanion migrate needs --from <the Unleash address>');
  if (!token) throw new UsageError('fanion migrate needs --token <an admin API token> (or UNLEASH_TOKEN in the environment)');
  const config = loadConfig(process.env);
  const dataDir = values.data ? path.resolve(values.data as string) : config.dataDir;
  const v2Secrets = values['v2-secrets'] ? readSecrets(values['v2-secrets'] as string) : [];
  // What Unleash sent reaches the terminal only escaped (names, its version, its messages).
  const say = (line: string) => void process.stderr.write(printableLines(line) + '\n');
  const r = await migrate({
    from: values.from as string, token, dataDir, merge: values.merge === true, v2Secrets, tokenHashKey: config.tokenHashKey,
    sync: config.walSync === 'always', log: createLogger('warn', 'pretty', process.stderr), say,
  });
  const secs = (ms: number) => (ms / 1000).toFixed(1);
  const t = r.result.tokens;
  const out = [
    `migrated into ${dataDir} in ${secs(r.totalMs)} s (reading Unleash: ${secs(r.readMs)} s)`,
    `  ${Object.entries(r.counts).map(([k, n]) => `${k} ${n}`).join(', ')}`,
    r.result.ops === 0 ? '  nothing to change: the data folder already holds all of it' : `  written as one change: ${r.result.ops} operations, ${r.result.events} events`,
    `  API tokens: ${t.added} added, ${t.updated} updated, ${t.unchanged} already here${t.stayDeleted ? `, ${t.stayDeleted} deleted here before (they stay deleted)` : ''}`,
  ];
  if (r.result.strategiesRemoved || r.result.tagsRemoved) out.push(`  removed what Unleash no longer has: ${r.result.strategiesRemoved} strategies, ${r.result.tagsRemoved} flag tags`);
  out.push('not brought over:', ...r.left.map((l) => `  - ${l}`));
  out.push("next: start Fanion on this folder and point SDKs, proxies and Edge at its address; their tokens work unchanged.");
  process.stdout.write(printableLines(out.join('\n')) + '\n');
  return 0;
}

/** Full v2 token strings, one per line (blank lines and # comments skipped). */
function readSecrets(file: string): string[] {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --v2-secrets ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l.length > 0 && !l.startsWith('#'));
}

async function main(argv: string[]): Promise<number> {
  const [cmd, ...args] = argv;
  if (cmd === 'verify' && args.length === 1) return verify(path.resolve(args[0]));
  if (cmd === 'backup' && args.length === 2) return backup(path.resolve(args[0]), path.resolve(args[1]));
  if (cmd === 'migrate') return migrateCommand(args);
  if ((cmd === '--version' || cmd === '-v' || cmd === 'version') && args.length === 0) {
    process.stdout.write(`fanion ${FANION_VERSION}\n`);
    return 0;
  }
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
  if (err instanceof UsageError) {
    process.stderr.write(`fanion: ${err.message}\n${USAGE}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`fanion: ${printableLines((err as Error).message)}\n`);
    process.exitCode = 1;
  }
}
