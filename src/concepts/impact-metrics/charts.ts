// Saved impact metrics charts (Unleash's impact-metrics config): pure commands over the state.
// A chart belongs to the impact metrics page or to one flag's page; it is saved again under its
// id, and only where it belongs (an id of another flag's chart is not found there).
import type { Command } from '../../core/engine/command.js';
import { BadRequestError, NotFoundError } from '../../core/errors.js';
import type { State } from '../../core/state/state.js';
import type { ImpactChart } from '../../core/state/types.js';

/** A chart as a body describes it. */
export type ChartInput = Omit<ImpactChart, 'id' | 'feature' | 'createdAt'> & { id?: string };

/** At most this many charts are kept, on all pages together. */
export const MAX_CHARTS = 1000;

/** The charts of the impact metrics page (`feature` null) or of one flag's page, oldest first. */
export function chartsOf(state: State, feature: string | null): ImpactChart[] {
  return [...state.impactCharts.values()].filter((c) => c.feature === feature).sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : 1));
}

function chartIn(state: State, id: string, feature: string | null): ImpactChart {
  const chart = state.impactCharts.get(id);
  if (!chart || chart.feature !== feature) throw new NotFoundError(`Could not find impact metrics chart "${id}"${feature ? ` of flag "${feature}"` : ''}.`);
  return chart;
}

/** Saves a chart: a new one without an id (or with an id not kept), else the one of that id. */
export function saveChart(input: ChartInput, feature: string | null): Command<ImpactChart> {
  return (state, env) => {
    const had = input.id !== undefined && state.impactCharts.has(input.id) ? chartIn(state, input.id, feature) : null;
    if (!had && state.impactCharts.size >= MAX_CHARTS) throw new BadRequestError(`At most ${MAX_CHARTS} impact metrics charts are kept; delete one first.`);
    const chart: ImpactChart = {
      id: had?.id ?? env.newId(),
      ...(input.title !== undefined ? { title: input.title } : {}),
      metricName: input.metricName, timeRange: input.timeRange, yAxisMin: input.yAxisMin, aggregationMode: input.aggregationMode,
      labelSelectors: input.labelSelectors, feature, createdAt: had?.createdAt ?? env.now,
    };
    return { ops: [{ o: 'impactChart.put', chart }], events: [], result: chart };
  };
}

export function deleteChart(id: string, feature: string | null): Command<void> {
  return (state) => {
    chartIn(state, id, feature);
    return { ops: [{ o: 'impactChart.del', id }], events: [], result: undefined };
  };
}
