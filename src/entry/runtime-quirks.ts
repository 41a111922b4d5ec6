// Work-arounds for the Node.js runtime Fanion runs on, applied once by main.ts when a process starts.
import { executionAsyncResource } from 'node:async_hooks';

let keptTickEntry: object | null = null;

/**
 * Keeps one of process.nextTick's queue entries alive for the life of the process.
 *
 * Why (Node 20, V8 11.3, and still on Node 22 and 24; measured): once no object made by an object literal with computed symbol
 * keys is alive, a memory-reducing garbage collection drops that literal's hidden class, and from
 * then on the literal is built by a slow path: about 230 ns instead of 1 ns, for good. V8's memory
 * reducer runs such a collection after a process has been idle for a while (a heap snapshot runs
 * one too), and process.nextTick builds its queue entry with such a literal, several times per HTTP
 * request inside Node. A relay answering 304s went from 12.7 to 16–17 µs per request after its
 * first idle spell and stayed there; a bare node -e loop of nextTicks from 65 to 300 ns. Holding
 * one entry keeps its hidden class alive, so the slow path is never taken: nothing else changes.
 */
export function keepTickEntryShape(): Promise<void> {
  return new Promise((resolve) => {
    process.nextTick(() => {
      // Inside a nextTick callback the resource being executed is that tick's own queue entry.
      keptTickEntry = executionAsyncResource();
      resolve();
    });
  });
}

/** The entry held (for tests): null until keepTickEntryShape has run. */
export function heldTickEntry(): object | null {
  return keptTickEntry;
}
