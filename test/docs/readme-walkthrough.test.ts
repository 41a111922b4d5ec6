// The README's walk-through, run as a new user would: its start command (verbatim, through
// `npm start`), every shell command of the section in one terminal, each answer matched against
// the `# →` lines under it, and its example programs (which must be the files in examples/). The
// one change: the server listens on a free port instead of 4242, so `4242` in the commands is
// replaced by that port (and FANION_URL tells the examples). The webhooks guide's example
// (docs/guides/webhooks.md) continues the walk-through and is run the same way.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { freePort } from '../helpers/ports.js';
import { client, ROOT, spawnServer, tempDataDir, type Spawned } from '../helpers/server.js';

const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
/** The webhooks guide, whose example continues the README's walk-through (its variables, its flag). */
const WEBHOOKS_GUIDE = fs.readFileSync(path.join(ROOT, 'docs/guides/webhooks.md'), 'utf8');
/** Where the walk-through with tokens ends and the one without authentication begins. */
const NO_AUTH = '**Without authentication**';

interface Block {
  lang: string;
  code: string;
  /** The text between the previous block and this one. */
  before: string;
}

/** The fenced blocks of the README from the section headed `heading` to the text `until`, in order. */
function blocksOf(heading: string, until: string): Block[] {
  const start = README.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README has no section "${heading}"`);
  const next = README.indexOf(until, start + 1);
  if (next < 0) throw new Error(`README has no "${until}" after "${heading}"`);
  const section = README.slice(start, next);
  const blocks: Block[] = [];
  const fence = /```(\w*)\n([\s\S]*?)```/g;
  let last = 0;
  for (let m = fence.exec(section); m; m = fence.exec(section)) {
    blocks.push({ lang: m[1], code: m[2], before: section.slice(last, m.index) });
    last = fence.lastIndex;
  }
  return blocks;
}

interface Step {
  command: string;
  /** The `# →` lines, without their comment marks; empty when the README shows no answer. */
  expected: string[];
}

/** A shell block cut into steps: the lines up to each `# →` answer, and that answer. */
function stepsOf(code: string): Step[] {
  const steps: Step[] = [];
  let command: string[] = [];
  let expected: string[] = [];
  for (const line of code.split('\n')) {
    if (line.startsWith('# → ')) expected.push(line.slice(4));
    else if (expected.length > 0 && line.startsWith('#   ')) expected.push(line.slice(4));
    else {
      if (expected.length > 0) {
        steps.push({ command: command.join('\n'), expected });
        command = [];
        expected = [];
      }
      command.push(line);
    }
  }
  steps.push({ command: command.join('\n'), expected });
  return steps;
}

/** The answer as the README shows it: `…` stands for anything within a line, or, alone, for any lines. */
function answerPattern(expected: string[]): RegExp {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const body = expected.map((line) => (line === '…' ? '(?:[^\\n]*\\n)*?' : `${escape(line).replace(/…/g, '[^\\n]*?')}\\r?\\n`)).join('');
  return new RegExp(`^${body}$`);
}

const MARK = '@@walkthrough-step@@';

/** Runs every step in one bash (variables carry over, as in one terminal) and returns each step's output. */
function runSteps(steps: Step[], port: number, cwd: string): Promise<string[]> {
  const script = steps.map((s) => `${s.command.replaceAll('4242', String(port))}\nprintf '\\n${MARK}\\n'`).join('\n');
  return new Promise((resolve, reject) => {
    execFile('bash', ['-c', script], { cwd, timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${err.message}\n${stderr}`));
      else resolve(stdout.split(`\n${MARK}\n`).slice(0, steps.length).map((out) => `${out.replace(/^\n+/, '').replace(/\n+$/, '')}\n`));
    });
  });
}

/** Runs an example program to its end, whatever its exit status. */
function runExample(file: string, url: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { cwd: ROOT, timeout: 30_000, env: { PATH: process.env.PATH ?? '', FANION_URL: url } }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

function runNode(file: string, url: string): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [file], { cwd: ROOT, timeout: 30_000, env: { PATH: process.env.PATH ?? '', FANION_URL: url } }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${file}: ${err.message}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/** Starts the server with a README start command, verbatim, on a free port and a fresh data folder. */
async function start(t: Test, command: string): Promise<Spawned> {
  const srv = await spawnServer({ command: ['bash', '-c', command], detached: true, dataDir: tempDataDir(), env: { AUTH_TYPE: undefined, WAL_SYNC: undefined, HOST: undefined } });
  t.teardown(async () => {
    await srv.stop();
    srv.killGroup();
  });
  return srv;
}

/** A folder to run the commands in, where the README's relative paths (test/fixtures/…) resolve. */
function workDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fanion-walkthrough-'));
  fs.symlinkSync(path.join(ROOT, 'test'), path.join(dir, 'test'));
  fs.symlinkSync(path.join(ROOT, 'examples'), path.join(dir, 'examples'));
  return dir;
}

t.test('the README walk-through works as written', async (t) => {
  const blocks = blocksOf('Walk-through', NO_AUTH);
  const startBlock = blocks.find((b) => b.lang === 'sh' && /npm start\s*$/.test(b.code));
  t.ok(startBlock, 'the walk-through starts Fanion with npm start');
  const srv = await start(t, startBlock!.code);
  t.match(srv.output(), new RegExp(`Fanion listening on port ${srv.port}: a server on the data folder [^;"]+; the console is at http://localhost:${srv.port}/`), 'the start-up output says the mode, its data folder, and where the console is');
  const console = await fetch(`http://localhost:${srv.port}/`);
  t.equal(console.status, 200, 'and it is there');

  // Every shell block after the start command, in one terminal.
  const shell = blocks.filter((b) => b.lang === 'sh' && b !== startBlock);
  const steps = shell.flatMap((b) => stepsOf(b.code));
  t.ok(steps.filter((s) => s.expected.length > 0).length >= 8, 'the walk-through shows its answers');
  const outputs = await runSteps(steps, srv.port, workDir());
  steps.forEach((step, i) => {
    if (step.expected.length === 0) return;
    const first = step.command.split('\n').filter((l) => l && !l.startsWith('#')).slice(-1)[0];
    t.match(outputs[i], answerPattern(step.expected), `answered as the README shows: ${first}`);
  });

  // The example programs: the README shows each file as it is, and each prints what the README says.
  const programs = blocks.filter((b) => b.lang === 'js');
  t.equal(programs.length, 3, 'three example programs');
  const expectations: Record<string, RegExp> = {
    'examples/try-sdk.mjs': /^Norway: true\nSweden: false\n$/,
    'examples/try-frontend.mjs': /^new-checkout for u42 in Norway: true\n$/,
    'examples/try-ofrep.mjs': /^Norway: true\nSweden: false\n$/,
  };
  for (const program of programs) {
    const file = /\(examples\/(try-[\w-]+\.mjs)\)/.exec(program.before)?.[1];
    t.ok(file, 'the text before the program names its file');
    const rel = `examples/${file}`;
    t.equal(program.code, fs.readFileSync(path.join(ROOT, rel), 'utf8'), `${rel} is what the README shows`);
    const { stdout, stderr } = await runNode(rel, srv.url);
    t.match(stdout, expectations[rel], `${rel} prints what the README says`);
    t.equal(stderr, '', `${rel} complains of nothing`);
  }

  // The Node SDK's two checks reach the console's Applications page (destroyWithFlush).
  const admin = client(srv.url, { authorization: '*:*.change-me-admin-secret' });
  let toggles: any[] = [];
  for (let i = 0; i < 50 && toggles.length === 0; i++) {
    const app = await admin('GET', '/api/admin/metrics/applications/my-app');
    toggles = app.json?.toggles ?? [];
    if (toggles.length === 0) await new Promise((r) => setTimeout(r, 200));
  }
  t.match(toggles, [{ featureName: 'new-checkout', environment: 'production', yes: 1, no: 1 }], "the SDK's checks are on the Applications page");
});

t.test('a wrong frontend token makes the browser example say so instead of waiting', async (t) => {
  const srv = await start(t, blocksOf('Walk-through', NO_AUTH).find((b) => b.lang === 'sh' && /npm start\s*$/.test(b.code))!.code.replace('change-me-frontend', 'another-frontend'));
  const { stdout, stderr } = await runNode('examples/try-frontend.mjs', srv.url);
  t.match(stdout, /Norway: false/);
  t.match(stderr, /Fanion said:.*401/s, 'the 401 is printed');
});

t.test('the README without authentication, as written', async (t) => {
  const section = README.slice(README.indexOf(NO_AUTH));
  const command = /`(AUTH_TYPE=none npm start)`/.exec(section)?.[1];
  t.ok(command, 'the README says how to start without authentication');
  const srv = await start(t, command!);
  t.match(srv.output(), /AUTH_TYPE=none: authentication is OFF, so Fanion listens on 127\.0\.0\.1 only/, 'it logs the warning the README quotes');
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1];
  const steps = stepsOf(block);
  const outputs = await runSteps(steps, srv.port, workDir());
  steps.forEach((step, i) => {
    if (step.expected.length > 0) t.match(outputs[i], answerPattern(step.expected), `answered as the README shows: ${step.command.split('\n').slice(-1)[0]}`);
  });
});

t.test('the OFREP example says what is wrong and exits 1: a wrong token, a closed port', async (t) => {
  const srv = await start(t, blocksOf('Walk-through', NO_AUTH).find((b) => b.lang === 'sh' && /npm start\s*$/.test(b.code))!.code.replace('change-me-client-secret', 'another-client-secret'));
  const refused = await runExample('examples/try-ofrep.mjs', srv.url);
  t.equal(refused.code, 1, 'a wrong token: exit status 1');
  t.equal(refused.stdout, '', 'and no answer printed as if it were one');
  t.equal(refused.stderr, `Fanion at ${srv.url}: HTTP 401 Unauthorized\n`);
  const closed = `http://127.0.0.1:${await freePort()}`;
  const unreachable = await runExample('examples/try-ofrep.mjs', closed);
  t.equal(unreachable.code, 1, 'a closed port: exit status 1');
  t.equal(unreachable.stdout, '');
  t.equal(unreachable.stderr, `Fanion at ${closed}: ECONNREFUSED\n`);
});

t.test("the webhooks guide's example works as written: Fanion allowed to deliver, the addon, the receiver, the events", async (t) => {
  t.ok(WEBHOOKS_GUIDE.startsWith('# Webhooks\n'), 'the guide is there');
  const end = WEBHOOKS_GUIDE.indexOf('Delivery is **at least once');
  t.ok(end > 0, 'and says how delivery goes after its example');
  const section = WEBHOOKS_GUIDE.slice(0, end);
  const blocks: Block[] = [];
  for (const m of section.matchAll(/```(\w*)\n([\s\S]*?)```/g)) blocks.push({ lang: m[1], code: m[2], before: '' });
  const [startBlock, addonBlock, receiverBlock, changeBlock, printed] = blocks;
  t.match(startBlock.code, /WEBHOOK_ALLOW_RANGES=127\.0\.0\.1\/32[\s\S]*npm start\s*$/, 'the start command, with the loopback allowed, comes first');
  t.match(receiverBlock.code, /node examples\/webhook-receiver\.mjs/);
  t.equal(printed.lang, 'text', "then what the receiver prints");
  const srv = await start(t, startBlock.code);
  // The walk-through's flag, on in production, as the walk-through leaves it.
  const admin = client(srv.url, { authorization: '*:*.change-me-admin-secret', 'content-type': 'application/json' });
  t.equal((await admin('POST', '/api/admin/projects/default/features', { name: 'new-checkout' })).status, 201);
  t.equal((await admin('POST', '/api/admin/projects/default/features/new-checkout/environments/production/on')).status, 200);
  // The receiver's port is a free one instead of 8080, as Fanion's is instead of 4242.
  const port = String(await freePort());
  const vars = blocksOf('Walk-through', NO_AUTH).flatMap((b) => b.code.split('\n')).filter((l) => /^[AJF]=/.test(l)).join('\n');
  t.equal(vars.split('\n').length, 3, 'the walk-through sets $A, $J and $F');
  const dir = workDir();
  const withVars = (code: string) => stepsOf(`${vars}\n${code.replaceAll('8080', port)}`);
  const addonSteps = withVars(addonBlock.code);
  const addonOut = await runSteps(addonSteps, srv.port, dir);
  const answered = addonSteps.findIndex((s) => s.expected.length > 0);
  t.match(addonOut[answered], answerPattern(addonSteps[answered].expected), 'the addon is created as the guide shows');
  t.ok(fs.existsSync(path.join(dir, 'addon.json')), 'and its answer kept in addon.json');

  const receiver = spawn('bash', ['-c', receiverBlock.code.replaceAll('8080', port)], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  t.teardown(() => {
    try {
      process.kill(-receiver.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  });
  let out = '';
  receiver.stdout.on('data', (c) => (out += c));
  receiver.stderr.on('data', (c) => (out += c));
  const until = async (re: RegExp, ms: number) => {
    const deadline = Date.now() + ms;
    while (!re.test(out) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  };
  await until(/listening on \d+/, 10_000);
  t.match(out, `listening on ${port}`, 'the receiver listens');

  const changeSteps = withVars(changeBlock.code);
  const outputs = await runSteps(changeSteps, srv.port, dir);
  changeSteps.forEach((step, i) => {
    if (step.expected.length > 0) t.match(outputs[i], answerPattern(step.expected), `answered as the guide shows: ${step.command.split('\n').slice(-1)[0]}`);
  });
  const expected = answerPattern(printed.code.replaceAll('8080', port).split('\n').filter((l) => l.length > 0));
  await until(expected, 15_000);
  t.match(out, expected, `the receiver prints what the guide says: ${JSON.stringify(out)}`);
});
