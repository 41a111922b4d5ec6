// Webhook body templates (Mustache) within a budget. Sections over lists multiply: six nested
// sections over a 20-value list render 20^6 = 64 million times, which held the event loop for
// over a minute and took the heap past 2 GB. So every render counts its work and its output as it
// goes and stops at the budget (the send then fails, naming the setting), and a save is refused
// when the template's worst case at ordinary list lengths is already over it.
import Mustache from 'mustache';

export interface TemplateBudget {
  /** The rendered body's size, in UTF-16 code units, at most (WEBHOOK_TEMPLATE_MAX_BYTES). */
  maxBytes: number;
  /** Work units at most (WEBHOOK_TEMPLATE_MAX_STEPS): each token rendered costs the depth of sections it sits in. */
  maxSteps: number;
}

/** A render stopped at its budget, or a save refused because its worst case is over it. */
export class TemplateBudgetError extends Error {
  override readonly name = 'TemplateBudgetError';
}

/**
 * The save-time estimate's list length: a section over a name that may hold a list (anything but
 * the event's own scalar fields and objects) is counted as rendering this many times. Real lists
 * can be longer; the render's own count still stops them.
 */
export const ESTIMATED_LIST_LENGTH = 20;

/** Sections nested deeper than this are refused on save (before the estimate's own recursion, or a render's, runs out of stack). */
export const MAX_NESTING = 100;

/** Names whose sections render at most once (objects or scalars of the view webhookRequest builds). */
const SINGLE = new Set(['event', 'eventJson', 'event.data', 'event.preData', 'event.id', 'event.type', 'event.createdBy', 'event.createdAt', 'event.project', 'event.environment', 'event.featureName']);

type Token = string[];

/**
 * Mustache's own writer with its renderTokens counted: the same loop as the library's, which
 * also counts the bytes of each value and text it adds. Partials are never given, so `{{> x}}`
 * renders nothing, as in the library without partials.
 */
class BudgetedWriter extends Mustache.Writer {
  private steps = 0;
  private bytes = 0;
  private depth = 0;

  constructor(private readonly budget: TemplateBudget) {
    super();
  }

  override renderTokens(tokens: Token[], context: Mustache.Context, partials?: Mustache.PartialsOrLookupFn, originalTemplate?: string, config?: Mustache.RenderOptions): string {
    this.depth++;
    try {
      this.steps += Math.max(1, tokens.length) * this.depth;
      if (this.steps > this.budget.maxSteps) throw new TemplateBudgetError(`its rendering takes more than WEBHOOK_TEMPLATE_MAX_STEPS (${this.budget.maxSteps}) steps for this event (sections over lists multiply)`);
      let out = '';
      for (const token of tokens) {
        let value: string | undefined;
        if (token[0] === '#') value = this.renderSection(token, context, partials, originalTemplate, config);
        else if (token[0] === '^') value = this.renderInverted(token, context, partials, originalTemplate, config);
        else if (token[0] === 'text') value = token[1];
        else if (token[0] === '&' || token[0] === 'name') {
          const v: unknown = context.lookup(token[1]);
          if (v !== null && v !== undefined) value = token[0] === '&' || typeof v === 'number' ? String(v) : Mustache.escape(v);
        }
        if (value === undefined) continue;
        // Sections' values were counted where they were made.
        if (token[0] !== '#' && token[0] !== '^') this.grow(value.length);
        out += value;
      }
      return out;
    } finally {
      this.depth--;
    }
  }

  private grow(n: number): void {
    this.bytes += n;
    if (this.bytes > this.budget.maxBytes) throw new TemplateBudgetError(`it renders more than WEBHOOK_TEMPLATE_MAX_BYTES (${this.budget.maxBytes}) bytes for this event`);
  }
}

/** Renders `template` with `view`; throws {@link TemplateBudgetError} as soon as it goes over `budget`. */
export function renderWithin(template: string, view: unknown, budget: TemplateBudget): string {
  // A writer per render: its cache (parsed templates) and its counts die with it.
  return new BudgetedWriter(budget).render(template, view);
}

/** Throws the parser's error when `template` is not Mustache. */
export function parseTemplate(template: string): Token[] {
  return new Mustache.Writer().parse(template) as Token[];
}

/**
 * What a render costs at worst when each list is {@link ESTIMATED_LIST_LENGTH} long, counted as
 * the render counts it: steps, and the bytes of the template's own text (values come on top).
 */
export function estimate(tokens: Token[], depth = 1): { steps: number; bytes: number } {
  if (depth > MAX_NESTING) throw new TemplateBudgetError(`has sections nested more than ${MAX_NESTING} deep`);
  let steps = Math.max(1, tokens.length) * depth;
  let bytes = 0;
  for (const token of tokens) {
    if (token[0] === 'text') bytes += token[1].length;
    if (token[0] !== '#' && token[0] !== '^') continue;
    const times = token[0] === '#' && !SINGLE.has(token[1]) ? ESTIMATED_LIST_LENGTH : 1;
    const inner = estimate(token[4] as unknown as Token[], depth + 1);
    steps += times * inner.steps;
    bytes += times * inner.bytes;
    // Past any budget already: stop before the numbers lose precision.
    if (steps > Number.MAX_SAFE_INTEGER / ESTIMATED_LIST_LENGTH) return { steps: Infinity, bytes };
  }
  return { steps, bytes };
}

/** Refuses (throws {@link TemplateBudgetError}) a template whose worst case at ordinary list lengths is over `budget`. */
export function checkTemplate(template: string, budget: TemplateBudget): void {
  const { steps, bytes } = estimate(parseTemplate(template));
  const why = `nested sections over lists multiply; each is counted as ${ESTIMATED_LIST_LENGTH} items`;
  if (steps > budget.maxSteps) throw new TemplateBudgetError(`could take ${Number.isFinite(steps) ? `about ${steps}` : 'too many'} steps to render, more than WEBHOOK_TEMPLATE_MAX_STEPS (${budget.maxSteps}) (${why})`);
  if (bytes > budget.maxBytes) throw new TemplateBudgetError(`could render about ${bytes} bytes, more than WEBHOOK_TEMPLATE_MAX_BYTES (${budget.maxBytes}) (${why})`);
}
