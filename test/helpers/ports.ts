// A loopback port free at the moment of asking, for a process a test starts itself (PostgreSQL,
// an OpenID provider) that cannot be told to take port 0 and report back.
import net from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}
