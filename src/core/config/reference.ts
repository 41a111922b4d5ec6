// The configuration reference (docs/reference/configuration.md), written from the table of
// settings: `npm run docs:config` writes it, test/config/reference.test.ts fails when it is stale.
import { GROUPS, SETTINGS, type Group, type Setting } from './settings.js';

const UNITS: [number, string][] = [[24 * 3600_000, 'days'], [3600_000, 'h'], [60_000, 'min'], [1000, 's']];

/** 28800000 → "8 h", 1048576 → "1 MiB": only when it divides evenly, else nothing. */
function readable(n: number, unit: 'ms' | 'bytes' | 's' | undefined): string {
  if (n === 0) return '';
  if (unit === 'ms') {
    const [size, name] = UNITS.find(([size]) => n % size === 0) ?? [0, ''];
    return size && n >= 1000 ? `${n / size} ${size === 24 * 3600_000 && n === size ? 'day' : name}` : '';
  }
  if (unit === 'bytes') {
    for (const [size, name] of [[1024 ** 3, 'GiB'], [1024 ** 2, 'MiB'], [1024, 'KiB']] as const) if (n % size === 0) return `${n / size} ${name}`;
  }
  return '';
}

function defaultOf(setting: Setting<unknown>): string {
  if (setting.defaultDoc) return setting.defaultDoc;
  if (setting.default === undefined) return 'unset';
  const shown = setting.kind.show(setting.default);
  if (shown === '') return 'none';
  const extra = typeof setting.default === 'number' ? readable(setting.default, setting.kind.unit === 's' ? undefined : setting.kind.unit) : '';
  return `\`${shown}\`${extra ? ` (${extra})` : ''}`;
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

export function renderReference(): string {
  const table: Record<string, Setting<unknown>> = SETTINGS;
  const keptEmpty = Object.keys(table).filter((name) => table[name].keepEmpty);
  const out = [
    '# Configuration reference',
    '',
    '<!-- Generated from src/core/config/settings.ts by `npm run docs:config`: edit the table there, not this file. -->',
    '<!-- test/config/reference.test.ts fails when the two differ. -->',
    '',
    'Fanion reads its settings from environment variables, once, at start-up. A value it cannot use stops',
    'the start with one line naming the variable, and the exit code 2. An empty value is the same as an',
    `unset one, except for ${keptEmpty.join(', ').replace(/, ([^,]*)$/, ' and $1')}, which take it as given. A setting is read only where it`,
    'applies (a relay\'s settings are not read by a server, nor a cluster\'s without DATABASE_URL or',
    'DATABASE_HOST), so a bad value of one that does not apply is not refused.',
    '',
  ];
  for (const group of Object.keys(GROUPS) as Group[]) {
    const names = Object.keys(table).filter((name) => table[name].group === group);
    out.push(`## ${GROUPS[group].title}`, '', GROUPS[group].intro, '', '| Variable | Default | Accepts | What it does |', '|---|---|---|---|');
    for (const name of names) {
      const setting = table[name];
      out.push(`| \`${name}\` | ${cell(defaultOf(setting))} | ${cell(setting.kind.accepts)} | ${cell(setting.doc)} |`);
    }
    out.push('');
  }
  return out.join('\n');
}
