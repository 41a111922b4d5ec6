// One flag's hourly counts (GET /api/admin/client-metrics/features/:name/raw) as the chart draws
// them: every hour of the period, empty ones included, summed over the environments and
// applications chosen. Pure (test/ui/diff.test.ts bundles it on its own).

export interface UsageEntry { appName: string; environment: string; timestamp: string; yes: number; no: number; variants?: Record<string, number> }
export interface Hour { hour: number; yes: number; no: number; variants: Record<string, number> }

export const HOUR_MS = 3_600_000;

/** `hours` hourly slots ending with the current one, summing the entries that match. */
export function hourly(entries: UsageEntry[], opts: { hours: number; now: number; environment?: string; appName?: string }): Hour[] {
  const last = Math.floor(opts.now / HOUR_MS) * HOUR_MS;
  const first = last - (opts.hours - 1) * HOUR_MS;
  const slots: Hour[] = Array.from({ length: opts.hours }, (_, i) => ({ hour: first + i * HOUR_MS, yes: 0, no: 0, variants: {} }));
  for (const e of entries) {
    if (opts.environment && e.environment !== opts.environment) continue;
    if (opts.appName && e.appName !== opts.appName) continue;
    const i = Math.round((Date.parse(e.timestamp) - first) / HOUR_MS);
    const slot = slots[i];
    if (!slot) continue;
    slot.yes += e.yes;
    slot.no += e.no;
    for (const [v, n] of Object.entries(e.variants ?? {})) slot.variants[v] = (slot.variants[v] ?? 0) + n;
  }
  return slots;
}

/** The variant names counted in `hours`, most counted first. */
export function variantNames(hours: Hour[]): string[] {
  const totals = new Map<string, number>();
  for (const h of hours) for (const [v, n] of Object.entries(h.variants)) totals.set(v, (totals.get(v) ?? 0) + n);
  return [...totals].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([v]) => v);
}

/** Yes and no over `hours`. */
export function totals(hours: Hour[]): { yes: number; no: number } {
  return hours.reduce((t, h) => ({ yes: t.yes + h.yes, no: t.no + h.no }), { yes: 0, no: 0 });
}
