// A change to a flag's environment that asks first (change-words.ts `asksFirst`: production, as
// the switch decides): asked once, in words, then made, then said with Undo for a few seconds.
// Elsewhere the change is simply made. The question and the note are overlays.ts's, the ones the
// production switch uses.
import { asksFirst, changeQuestion, type Change, type EnvFacts } from './change-words.js';
import { ask, tell } from './overlays.js';

/**
 * Makes `change` in `env` with `make`, asking first where changes ask; `undo` takes back what
 * `make` made (it gets its answer, e.g. a new strategy's id). False when the person said no.
 */
export async function askedChange<T>(env: EnvFacts, change: Change, make: () => Promise<T>, undo: (made: T) => Promise<unknown>, segmentName?: (id: number) => string): Promise<boolean> {
  if (!asksFirst(env)) {
    await make();
    return true;
  }
  const q = changeQuestion(env, change, segmentName);
  if (!(await ask({ title: q.title, body: q.body, confirm: q.confirm }))) return false;
  const made = await make();
  tell(q.done, () => undo(made));
  return true;
}
