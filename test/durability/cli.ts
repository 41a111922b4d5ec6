// Runs the built `fanion` command and returns its exit status and output (stdout then stderr).
import { runCli } from '../helpers/cli.js';

export async function fanion(...args: string[]): Promise<{ code: number; out: string }> {
  const r = await runCli(args);
  return { code: r.code ?? 1, out: r.stdout + r.stderr };
}
