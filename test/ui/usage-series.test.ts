// The console's usage series (ui/src/usage-series.ts): the raw hourly entries of a flag summed
// into every hour of the period, empty hours included, for the environment and application
// chosen, as the flag's chart draws them.
import t from 'tap';
import { uiModule } from '../helpers/ui-module.js';

interface Hour { hour: number; yes: number; no: number; variants: Record<string, number> }
interface Series {
  hourly(entries: unknown[], opts: { hours: number; now: number; environment?: string; appName?: string }): Hour[];
  variantNames(hours: Hour[]): string[];
  totals(hours: Hour[]): { yes: number; no: number };
}

const H = 3_600_000;
const NOW = Date.parse('2026-11-25T15:40:00.000Z');
const at = (hoursAgo: number) => new Date(Math.floor(NOW / H) * H - hoursAgo * H).toISOString();
const entry = (hoursAgo: number, environment: string, appName: string, yes: number, no: number, variants?: Record<string, number>) => ({ timestamp: at(hoursAgo), environment, appName, yes, no, variants });

t.test('hourly: every hour of the period, summed over what is chosen', async (t) => {
  const s = await uiModule<Series>('usage-series.ts');
  const entries = [
    entry(0, 'production', 'web', 3, 1, { blue: 3 }), entry(0, 'production', 'worker', 2, 0, { blue: 1, red: 1 }),
    entry(5, 'development', 'web', 0, 4), entry(30, 'production', 'web', 7, 0), entry(60, 'production', 'web', 100, 100),
  ];
  const day = s.hourly(entries, { hours: 24, now: NOW });
  t.equal(day.length, 24, '24 hours, empty ones included');
  t.equal(new Date(day[23].hour).toISOString(), at(0), 'ending with the current hour');
  t.same([day[23].yes, day[23].no, day[23].variants], [5, 1, { blue: 4, red: 1 }], 'both applications of the current hour');
  t.same([day[18].yes, day[18].no], [0, 4], 'five hours ago');
  t.same(s.totals(day), { yes: 5, no: 5 }, 'what is older than the period is left out');
  t.same(s.totals(s.hourly(entries, { hours: 48, now: NOW })), { yes: 12, no: 5 }, '48 hours reach 30 hours back');
  t.same(s.totals(s.hourly(entries, { hours: 48, now: NOW, environment: 'production' })), { yes: 12, no: 1 }, 'one environment');
  t.same(s.totals(s.hourly(entries, { hours: 48, now: NOW, environment: 'production', appName: 'worker' })), { yes: 2, no: 0 }, 'one application');
  t.same(s.variantNames(day), ['blue', 'red'], 'variants, most counted first');
});
