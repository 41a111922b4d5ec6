// A flag's usage over time: evaluations per hour (yes and no, or per variant) over the last 24 or
// 48 hours, for every environment and application or one of each, drawn as an inline SVG (no chart
// library), with the numbers in a table one click away. SDK counts are not events, so the section
// asks again every few seconds, as a background read the server does not log.
import { useEffect, useState } from 'preact/hooks';
import { enc, poll } from './api.js';
import { ErrorNote, Select, useLoad } from './components.js';
import { html } from './html.js';
import { hourly, totals, variantNames, type Hour, type UsageEntry } from './usage-series.js';

const EVERY_MS = 5_000;
const W = 600;
const H = 140;
/** Variant colours (styles.css `.v0`–`.v5`); more variants than that share the last. */
const PALETTE = 6;

/**
 * The class a variant is drawn with: "disabled" (what an SDK counts when the flag was off) in the
 * colour of "no", the others in the palette in order, so no variant takes the green of "on".
 */
export function variantClass(variants: string[], v: string): string {
  if (v === 'disabled') return 'v-off';
  const k = variants.filter((x) => x !== 'disabled').indexOf(v);
  return `v${Math.min(k, PALETTE - 1)}`;
}

const hh = (ms: number) => `${new Date(ms).toISOString().slice(11, 13)}:00`;
const n = (x: number) => x.toLocaleString('en');

function Chart({ hours, mode, variants, label }: { hours: Hour[]; mode: string; variants: string[]; label: string }) {
  const max = Math.max(1, ...hours.map((h) => h.yes + h.no));
  const w = W / hours.length;
  const y = (v: number) => (v / max) * (H - 16);
  return html`<svg class="usage-chart" viewBox=${`0 0 ${W} ${H + 14}`} role="img" aria-label=${label}>
    <line x1="0" x2=${W} y1=${H} y2=${H} class="axis" />
    <text x="2" y="10" class="tick">${n(max)}</text>
    ${hours.map((h, i) => {
      const x = i * w + 1;
      const bw = Math.max(1, w - 2);
      let top = H;
      const stack = mode === 'variants'
        ? variants.map((v) => [h.variants[v] ?? 0, variantClass(variants, v)] as [number, string])
        : [[h.yes, 'bar-yes'], [h.no, 'bar-no']] as [number, string][];
      return html`<g>${stack.filter(([c]) => c > 0).map(([c, cls]) => {
        top -= y(c);
        return html`<rect x=${x} y=${top} width=${bw} height=${y(c)} class=${cls}><title>${hh(h.hour)}: ${n(c)}</title></rect>`;
      })}${i % 6 === 0 ? html`<text x=${x} y=${H + 12} class="tick">${hh(h.hour)}</text>` : null}</g>`;
    })}
  </svg>`;
}

export function Usage({ flag, environments }: { flag: string; environments: string[] }) {
  const [environment, setEnvironment] = useState('');
  const [appName, setAppName] = useState('');
  const [mode, setMode] = useState('yes-no');
  const [period, setPeriod] = useState('48');
  const raw = useLoad(() => poll<{ data: UsageEntry[] }>(`/api/admin/client-metrics/features/${enc(flag)}/raw?hoursBack=48`).then((r) => r.data), [flag]);
  useEffect(() => {
    // A tab in the background asks nothing; it catches up when shown again.
    const timer = setInterval(() => document.hidden || raw.reload(), EVERY_MS);
    return () => clearInterval(timer);
  }, []);
  const entries = raw.data ?? [];
  const apps = [...new Set(entries.map((e) => e.appName))].sort();
  const hours = hourly(entries, { hours: Number(period), now: Date.now(), environment: environment || undefined, appName: appName || undefined });
  const variants = variantNames(hours);
  const sum = totals(hours);
  const where = [environment, appName].filter(Boolean).join(', ');
  const label = `Evaluations per hour over the last ${period} hours${where ? ` in ${where}` : ''}: ${n(sum.yes)} yes, ${n(sum.no)} no`;
  return html`<section class="panel" aria-labelledby="flag-usage"><h2 id="flag-usage">Usage</h2>
    <${ErrorNote} error=${raw.error} />
    <div class="toolbar">
      <${Select} label="Environment" value=${environment} options=${[['', 'All environments'], ...environments]} onChange=${setEnvironment} />
      <${Select} label="Application" value=${appName} options=${[['', 'All applications'], ...apps, ...(appName && !apps.includes(appName) ? [appName] : [])]} onChange=${setAppName} />
      <${Select} label="Show" value=${mode} options=${[['yes-no', 'Yes and no'], ['variants', 'Variants']]} onChange=${setMode} />
      <${Select} label="Period" value=${period} options=${[['24', 'Last 24 hours'], ['48', 'Last 48 hours']]} onChange=${setPeriod} />
    </div>
    ${raw.data && sum.yes + sum.no === 0
      ? html`<p class="muted">No SDK has evaluated ${flag}${where ? ` in ${where}` : ''} in the last ${period} hours. An SDK's counts show here once it sends its metrics (every minute by default).</p>`
      : raw.data ? html`<p class="usage-total">${n(sum.yes + sum.no)} evaluations: <span class="yes">${n(sum.yes)} yes</span>, <span>${n(sum.no)} no</span>
          ${mode === 'variants' && variants.length > 0 ? html` · ${variants.map((v) => html`<span class=${`key ${variantClass(variants, v)}`}>${v}</span> `)}` : null}</p>
        <${Chart} hours=${hours} mode=${mode} variants=${variants} label=${label} />
        <details><summary>Numbers</summary><div class="table-wrap"><table class="usage">
          <thead><tr><th scope="col">Hour (UTC)</th><th scope="col">Yes</th><th scope="col">No</th><th scope="col">Variants</th></tr></thead>
          <tbody>${hours.filter((h) => h.yes + h.no > 0).reverse().map((h) => html`<tr><th scope="row">${new Date(h.hour).toISOString().slice(0, 13).replace('T', ' ')}:00</th>
            <td>${n(h.yes)}</td><td>${n(h.no)}</td><td>${Object.entries(h.variants).map(([v, c]) => `${v} ${n(c)}`).join(', ')}</td></tr>`)}</tbody>
        </table></div></details>` : html`<p class="loading">Loading…</p>`}
  </section>`;
}
