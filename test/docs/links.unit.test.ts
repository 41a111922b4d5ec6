// Every relative link in the README, CONTRIBUTING and docs/ leads somewhere: the file exists and, when
// the link names a heading of a Markdown file, that heading is there. Docs move (guides, reference,
// decisions); a link left behind is the first thing a newcomer trips on. Also: no comment in src/
// points at a document outside the repository.
import fs from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/paths.js';

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? markdownFiles(p) : e.name.endsWith('.md') ? [p] : [];
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf(file: string): Set<string> {
  const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const anchors = new Set<string>();
  for (const m of text.matchAll(/^#+\s+(.+)$/gm)) {
    anchors.add(m[1].trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-'));
  }
  return anchors;
}

/** [text](target) links that are not URLs, outside code blocks. */
function relativeLinks(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((l) => !/^[a-z][a-z0-9+.-]*:/i.test(l));
}

function broken(files: string[]): string[] {
  const wrong: string[] = [];
  for (const file of files) {
    for (const link of relativeLinks(file)) {
      const [target, anchor] = link.split('#');
      const resolved = target === '' ? file : path.resolve(path.dirname(file), target);
      const where = `${path.relative(ROOT, file)} → ${link}`;
      if (!fs.existsSync(resolved)) wrong.push(`${where}: no such file`);
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor.toLowerCase())) wrong.push(`${where}: no such heading`);
    }
  }
  return wrong;
}

t.test('every relative link in the docs leads to a file and heading that exist', async (t) => {
  const files = [path.join(ROOT, 'README.md'), path.join(ROOT, 'CONTRIBUTING.md'), ...markdownFiles(path.join(ROOT, 'docs'))];
  t.ok(files.length > 30, `${files.length} Markdown files read`);
  const links = files.reduce((n, f) => n + relativeLinks(f).length, 0);
  t.ok(links > 100, `${links} links checked`);
  t.same(broken(files), [], 'no link is broken');
});

t.test('the check sees a broken link and a missing heading', async (t) => {
  const dir = fs.mkdtempSync(path.join(ROOT, 'dist', 'links-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'a.md'), '# Title\n\n## Some part\n\n[ok](#some-part) [ok](a.md#title) [bad](gone.md) [bad](a.md#nothing) `[code](x.md)`\n');
  t.same(broken([path.join(dir, 'a.md')]).map((w) => w.replace(/^.*→ /, '')), ['gone.md: no such file', 'a.md#nothing: no such heading']);
});

t.test('no comment in src/ points at a document outside the repository', async (t) => {
  const outside = /\b(decisions|protocols|interface-spec|unleash-behavior)\.md\b|\.\.\/shared\//;
  const wrong: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.ts')) fs.readFileSync(p, 'utf8').split('\n').forEach((line, i) => { if (outside.test(line)) wrong.push(`${path.relative(ROOT, p)}:${i + 1}`); });
    }
  };
  walk(path.join(ROOT, 'src'));
  t.same(wrong, [], 'every pointer in src/ is to the repository\'s own docs');
});
