// A relay stops promptly even when its upstream hangs (accepts connections and never answers):
// its polls, stream opens and token checks are cut by the stop, not left to their timeout.
import net from 'node:net';
import t from 'tap';
import { startRelay, startUpstream, waitReady } from '../../helpers/relay.js';
import { tempDataDir } from '../../helpers/server.js';

t.test('a relay whose upstream never answers stops within seconds, cleanly', async (t) => {
  const held = new Set<net.Socket>();
  const hanging = net.createServer((s) => {
    held.add(s);
    s.on('error', () => {});
  });
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    for (const s of held) s.destroy();
    hanging.close();
  });
  const port = (hanging.address() as net.AddressInfo).port;
  // The relay first learns its tokens and flags from a real upstream, so that against the hanging
  // one it follows (polls or opens a stream) at once instead of waiting to check its tokens.
  const { srv: up } = await startUpstream(t);
  const dataDir = tempDataDir();
  const first = await startRelay(t, up.url, { dataDir, noTeardown: true });
  await waitReady(first.url);
  t.equal(await first.stop(), 0);
  for (const protocol of ['polling', 'delta', 'streaming'] as const) {
    const relay = await startRelay(t, `http://127.0.0.1:${port}`, { protocol, dataDir, noTeardown: true, env: { UPSTREAM_REQUEST_TIMEOUT: '60', SHUTDOWN_TIMEOUT_MS: '30000' } });
    await new Promise((r) => setTimeout(r, 1000));
    t.ok(held.size > 0, `${protocol}: the relay is waiting on its upstream`);
    const t0 = performance.now();
    const code = await relay.stop();
    const ms = performance.now() - t0;
    t.equal(code, 0, `${protocol}: a clean stop`);
    t.ok(ms < 5000, `${protocol}: stopped in ${Math.round(ms)} ms, not after the 60 s request timeout`);
  }
});
