/**
 * The UDP interface: a datagram carrying a request (JSON or XML, as the body of POST /register, RN and
 * TaxId as root attributes) is registered and answered by one datagram to its sender (`datagram.ts`).
 * A request larger than the limit is refused RC BAD #TOO_LARGE naming it. Beyond 64 requests in hand,
 * datagrams are dropped, as a busy UDP service does: the POS repeats, and a repeat with its TN is
 * answered #DUPLICATE by the pipeline if the first one was registered.
 *
 * A datagram's sender address can be forged, so a refusal (RC BAD: garbage, a few bytes, a document
 * that is no request, a request too broken to register) goes out only when it is no larger than the
 * datagram itself: such a datagram is never a way to make the service send more bytes to a victim than
 * the attacker sent. A real request is hundreds of bytes, and its refusal fits; a stray byte or `<Tra/>`
 * gets nothing. What was registered (RC OK) or could not be for a while (RC NO) is answered whole.
 */
import { type RemoteInfo, type Socket, createSocket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { FiscalError } from '../../shared/errors.js';
import { bodyFormat, decodeBody, obj, str } from '../codec/index.js';
import { REQUEST_ROOTS } from '../pipeline.js';
import type { ServiceContext } from '../context.js';
import type { ListenTarget } from '../listener.js';
import { type Reply, failureOf, failureReply } from '../respond.js';
import type { LogSink } from '../security/tls-runtime.js';
import { MAX_DATAGRAM, fitDatagram } from './datagram.js';
import { type TextRequest, readRequestText, registerText } from './request-text.js';

export interface UdpOptions {
  /** largest request and answer (bytes) */
  maxDatagram?: number;
  /** requests in hand at most; more are dropped */
  maxInFlight?: number;
}

export class UdpInterface {
  private socket: Socket | undefined;
  private target: ListenTarget | undefined;
  private readonly inflight = new Set<Promise<void>>();
  private readonly maxDatagram: number;
  private readonly maxInFlight: number;
  private closed = false;
  private dropped = 0;
  private unanswered = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly ctx: ServiceContext,
    options: UdpOptions = {},
    private readonly log?: LogSink,
  ) {
    this.maxDatagram = options.maxDatagram ?? MAX_DATAGRAM;
    this.maxInFlight = options.maxInFlight ?? 64;
  }

  /** The port bound (the real one when 0 was asked for); 0 when not bound. */
  get port(): number {
    try {
      return this.socket?.address().port ?? 0;
    } catch {
      return 0;
    }
  }

  get address(): ListenTarget | undefined {
    return this.target ? { host: this.target.host, port: this.port } : undefined;
  }

  /** Opens the socket: `::` is dual stack (IPv6 and IPv4), like the HTTP listener. */
  private async bind(target: ListenTarget): Promise<Socket> {
    const socket = createSocket({ type: isIPv6(target.host) ? 'udp6' : 'udp4', reuseAddr: false });
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind({ port: target.port, address: target.host }, () => {
        socket.off('error', reject);
        resolve();
      });
    });
    socket.on('error', (e) => this.log?.error({ type: 'UDP', err: e }, 'UDP socket error'));
    socket.on('message', (msg, rinfo) => this.receive(socket, msg, rinfo));
    return socket;
  }

  async listen(target: ListenTarget): Promise<void> {
    this.socket = await this.bind(target);
    this.target = { ...target };
    this.log?.info({ type: 'UDP', host: target.host, port: this.port }, 'UDP interface started');
  }

  /** Moves to another port or host (HttpServer_Port changed): the new socket first; the old one stays when the new one cannot be opened. */
  move(target: ListenTarget): Promise<void> {
    const run = this.queue.then(async () => {
      const old = this.socket;
      if (this.closed || !old || !this.target) return;
      if (this.target.host === target.host && (target.port === this.port || target.port === 0)) return;
      let next: Socket;
      try {
        next = await this.bind(target);
      } catch (e) {
        this.log?.error({ type: 'UDP', err: e, host: target.host, port: target.port }, `cannot open UDP ${target.host} port ${target.port}; UDP stays on port ${this.port}`);
        return;
      }
      this.socket = next;
      this.target = { ...target };
      this.log?.info({ type: 'UDP', host: target.host, port: this.port }, 'UDP interface moved');
      // answers to requests received on the old socket still go out through it
      await Promise.all([...this.inflight]);
      await new Promise<void>((resolve) => old.close(() => resolve()));
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private receive(socket: Socket, msg: Buffer, rinfo: RemoteInfo): void {
    if (this.closed) return;
    if (this.inflight.size >= this.maxInFlight) {
      this.dropped += 1;
      if (this.dropped === 1 || this.dropped % 1000 === 0) this.log?.warn({ type: 'UDP', dropped: this.dropped }, 'UDP requests dropped: too many in hand');
      return;
    }
    const run = this.answer(msg)
      .then((answer) => (answer ? this.send(socket, answer, rinfo) : undefined))
      .catch((e: unknown) => this.log?.error({ type: 'UDP', err: e, from: rinfo.address }, 'UDP request not answered'))
      .finally(() => this.inflight.delete(run));
    this.inflight.add(run);
  }

  /** The answer datagram; undefined when none goes out (a refusal larger than the datagram it refuses). */
  private async answer(msg: Buffer): Promise<Buffer | undefined> {
    const lang = this.ctx.registers.lang(this.ctx.registers.get('def'));
    if (msg.length > this.maxDatagram) {
      // the start is enough to tell the format the POS speaks
      const format = bodyFormat(undefined, msg.subarray(0, 64).toString('utf8').replace(/^\uFEFF/, ''));
      return this.noLarger(msg, Buffer.from(failureReply(format, 'TraC', failureOf(new FiscalError('#TOO_LARGE', { value: this.maxDatagram }), lang), false).body, 'utf8'));
    }
    const request = readRequestText(msg.toString('utf8'));
    const reply = await registerText(this.ctx, request);
    const bytes = fitDatagram(reply, this.maxDatagram);
    // only an answer larger than its datagram needs to know whether it is a refusal
    return bytes.length <= msg.length || (isRequest(request) && !refused(reply)) ? bytes : this.noLarger(msg, bytes);
  }

  /** A refusal, when it is no larger than the datagram it refuses. */
  private noLarger(msg: Buffer, answer: Buffer): Buffer | undefined {
    if (answer.length <= msg.length) return answer;
    this.unanswered += 1;
    if (this.unanswered === 1 || this.unanswered % 1000 === 0) {
      this.log?.warn({ type: 'UDP', unanswered: this.unanswered, bytes: msg.length }, 'UDP datagrams refused without an answer: the refusal (RC BAD) would be larger than the datagram');
    }
    return undefined;
  }

  private send(socket: Socket, data: Buffer, rinfo: RemoteInfo): Promise<void> {
    return new Promise((resolve, reject) => socket.send(data, rinfo.port, rinfo.address, (e) => (e ? reject(e) : resolve())));
  }

  /** No more requests; the ones in hand are answered, then the socket closes. */
  async close(): Promise<void> {
    this.closed = true;
    await this.queue;
    while (this.inflight.size) await Promise.all([...this.inflight]);
    const socket = this.socket;
    this.socket = undefined;
    if (socket) await new Promise<void>((resolve) => socket.close(() => resolve()));
  }
}

/** A JSON or XML document with a root the pipeline registers. */
function isRequest(request: TextRequest): boolean {
  return request.doc !== undefined && REQUEST_ROOTS.includes(request.doc.root);
}

/** RC BAD: nothing was registered, and the request as sent will never be. */
function refused(reply: Reply): boolean {
  try {
    const result = obj(decodeBody(reply.body, reply.contentType, 'TraC').body, 'Result');
    return result !== undefined && str(result, 'RC') === 'BAD';
  } catch {
    // the service's own answer always decodes; an answer that does not is treated as a refusal
    return true;
  }
}
