// A TCP proxy on loopback between a node and its database, which a test can break the way networks
// break: `cut()` closes every connection and refuses new ones (a node cut off: its connections
// fail at once); `hold()` stops carrying bytes without closing anything (a partition: packets
// vanish, connections look alive), queueing them, and `heal()` delivers what was queued and carries
// on, as a network does when a partition ends and TCP retransmits. `holdReplies()` holds only what
// the database sends (a statement arrives and commits; its answer is lost in the partition);
// `holdAfter(text)` and `holdRepliesAfter(text)` do the same as `hold()` and `holdReplies()`, but
// only on the connections that send a statement containing `text` from then on (an INSERT held, or
// its answer lost, while the node's other statements, its reads, go through).
// `retarget()` sends new connections elsewhere: the proxy then stands for a load balancer.
import net from 'node:net';

type Mode = 'pass' | 'hold' | 'hold-replies' | 'hold-after' | 'hold-replies-after' | 'cut';

interface Pipe {
  client: net.Socket;
  server: net.Socket;
  toServer: Buffer[];
  toClient: Buffer[];
  /** In the *-after modes: this connection sent the marked statement; it is held from then on. */
  marked: boolean;
}

export interface TcpProxy {
  port: number;
  /** A postgres:// URL like `url` but through the proxy. */
  via(url: string): string;
  cut(): void;
  /** New connections go to `port` from now on (a load balancer moving traffic to another node). */
  retarget(port: number): void;
  hold(): void;
  holdReplies(): void;
  holdAfter(text: string): void;
  holdRepliesAfter(text: string): void;
  heal(): void;
  close(): Promise<void>;
}

export async function tcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: Mode = 'pass';
  let marker = '';
  const pipes = new Set<Pipe>();
  const flush = (p: Pipe) => {
    const after = mode === 'hold-after' || mode === 'hold-replies-after';
    if (mode === 'pass' || mode === 'hold-replies' || mode === 'hold-replies-after' || (mode === 'hold-after' && !p.marked)) for (const b of p.toServer.splice(0)) p.server.write(b);
    if (mode === 'pass' || (after && !p.marked)) for (const b of p.toClient.splice(0)) p.client.write(b);
  };
  const server = net.createServer((client) => {
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    const p: Pipe = { client, server: upstream, toServer: [], toClient: [], marked: false };
    pipes.add(p);
    const end = () => {
      pipes.delete(p);
      client.destroy();
      upstream.destroy();
    };
    client.on('data', (b) => {
      if ((mode === 'hold-after' || mode === 'hold-replies-after') && b.includes(marker)) p.marked = true;
      p.toServer.push(b);
      flush(p);
    });
    upstream.on('data', (b) => {
      p.toClient.push(b);
      flush(p);
    });
    // A connection that ends while held stays open on the other side, as in a partition.
    client.on('close', () => (mode === 'pass' ? end() : undefined));
    upstream.on('close', () => (mode === 'pass' ? end() : undefined));
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as net.AddressInfo).port;
  const destroyAll = () => {
    for (const p of pipes) {
      p.client.destroy();
      p.server.destroy();
    }
    pipes.clear();
  };
  return {
    port,
    via: (url) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
    cut: () => {
      mode = 'cut';
      destroyAll();
    },
    retarget: (p) => {
      target = { ...target, port: p };
    },
    hold: () => {
      mode = 'hold';
    },
    holdReplies: () => {
      mode = 'hold-replies';
    },
    holdAfter: (text) => {
      marker = text;
      mode = 'hold-after';
    },
    holdRepliesAfter: (text) => {
      marker = text;
      mode = 'hold-replies-after';
    },
    heal: () => {
      mode = 'pass';
      for (const p of [...pipes]) {
        p.marked = false;
        // What was sent before a side closed still arrives (TCP retransmits), then the close.
        if (!p.server.destroyed) for (const b of p.toServer.splice(0)) p.server.write(b);
        if (!p.client.destroyed) for (const b of p.toClient.splice(0)) p.client.write(b);
        if (p.client.destroyed || p.server.destroyed) {
          p.client.end();
          p.server.end();
          pipes.delete(p);
        }
      }
    },
    close: async () => {
      destroyAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
