#!/usr/bin/env python3
"""p4lab traffic agent: one file, Python 3.8+, standard library only.

p4lab uploads this file to every testbed host and runs it in the host namespaces.

Modes
-----
  server --port P [--bind ADDR]
      Accepts TCP connections, one flow per connection (a thread each). A flow starts
      with a 16-byte header: magic b"P4LA", flow id (u32), size (u64), network order.
      The server reads exactly `size` bytes, then replies with one byte (the ack). A size
      of 2**64-1 means "unbounded" (long-lived): the server reads until EOF and replies
      with the byte count it received (u64).

  client --dsts IP:PORT,... --out FILE [workload]
      Poisson (default): --cdf FILE --load L --link-bps B --flows N --seed S [--stream K]
          Arrivals at load * B / 8 / mean(CDF) flows/s, sizes drawn from the CDF by linear
          interpolation, destinations uniform over --dsts: the very generator (same PRNG,
          same draw order) as p4lab's simulator for one source host, so the same seed and
          stream give the same sizes and arrival times. Give each host its own --stream
          (default 1, the simulator's workload stream).
      --incast --incast-bytes B --events E --incast-rate R [--start-at EPOCH_NS]
          Incast events at Poisson times (R per second) from PRNG stream 3 of --seed; at
          each event this host sends B bytes to one receiver drawn from --dsts by that same
          stream. Every sender of an incast is started with the same seed, --dsts and
          --start-at, so all of them hit the same receiver at the same instant. With --cdf
          (and --load/--link-bps/--flows) Poisson background traffic runs alongside.
      --long-lived --flows N [--size B] [--duration SEC]
          N flows at once, to --dsts round-robin; unbounded unless --size. They run until
          --duration, SIGTERM/SIGINT, or (sized) completion.
      --max-inflight M caps concurrent flows (default 512); a flow that finds the cap
      reached waits for a slot and is counted in the summary (cap_waits).

  probe --iface IF --ethertype 0xNNNN --period-us T --payload-hex HEX [--dst-mac MAC]
        [--count N]
      Sends one raw Ethernet frame (dst MAC, the interface's MAC, the ethertype, the
      payload, zero-padded to 60 bytes) every T microseconds on IF through an AF_PACKET
      socket (root or CAP_NET_RAW): the probe source of HULA/DHLB on BMv2 ToRs.

  relay --port P [--bind ADDR] [--rcvbuf BYTES]
      Binds UDP P (default address 0.0.0.0) and relays every datagram it receives to stdout
      as one line "<arrival epoch ns> <payload in base64>\n", flushed as soon as the socket
      has nothing more queued: p4lab's INT collector on BMv2 testbeds (the switches' Telemetry
      Report packets arrive here; p4lab decodes them). The first line is
      {"listening": "ADDR:PORT", "rcvbuf": BYTES}; on SIGTERM/SIGINT a last line
      {"summary": {"mode": "relay", "datagrams": N, "bytes": B, "errors": E,
      "kernel_drops": D, "no_port": U}} follows, where kernel_drops and no_port are the
      growth of the namespace's UDP RcvbufErrors and NoPorts counters (/proc/net/snmp) while
      it ran: datagrams the kernel dropped for a full socket buffer, and ones sent to a port
      nothing listened on (null where /proc/net/snmp cannot be read).

Flow completion time
--------------------
FCT is measured at the sender, as application-level generators (the DCTCP/CONGA/HULA
traffic generators) do: from the moment the first byte of the flow is handed to the
socket (after connect(), so the TCP handshake is not counted - the simulator has none
either) until the receiver's one-byte ack arrives. It therefore includes one extra
one-way delay for the ack. Times come from the monotonic clock; start_ns is the wall clock
(time.time_ns) at the first byte, end_ns = start_ns + fct_ns, so hosts with synchronised
clocks give comparable start times.

Output (client)
---------------
One JSON line per flow, written and flushed when the flow ends:
  {"id": 0, "src": "10.0.0.1", "dst": "10.0.1.1:5001", "size": 12345,
   "start_ns": ..., "end_ns": ..., "fct_ns": ..., "retransmits": 0}
  - retransmits: tcpi_total_retrans from getsockopt(TCP_INFO), null where the kernel does
    not report it;
  - a flow that did not finish (stopped by a signal, unbounded, or failed) has end_ns and
    fct_ns null, and "delivered": bytes acknowledged (long-lived: counted by the server);
    a failed one also has "error"; an unbounded flow has size -1;
  - incast flows carry "group": the incast event number;
  - dst is "IP:PORT", with an IPv6 address in brackets ("[fe80::1]:5001").
Then one final line {"summary": {...}}. SIGTERM/SIGINT: stop starting flows, abort the
ones in flight (written as unfinished), write the summary, exit 0.
Exit codes: 0 done or stopped by a signal, 1 a runtime failure (bind, open), 2 bad usage.
"""

import argparse
import base64
import json
import math
import os
import signal
import socket
import struct
import sys
import threading
import time

MAGIC = b"P4LA"
HEADER = struct.Struct("!4sIQ")
UNBOUNDED = (1 << 64) - 1
CHUNK = 256 * 1024
ZEROS = memoryview(bytearray(CHUNK))

# Streams of the simulator's PRNG (src-main/sim/workload): Poisson workload 1, incast 3.
WORKLOAD_STREAM = 1
INCAST_STREAM = 3

# struct tcp_info, include/uapi/linux/tcp.h: eight u8 fields (the last two holding bit
# fields), then u32 fields from offset 8: rto, ato, snd_mss, rcv_mss, unacked, sacked,
# lost, retrans, fackets, last_data_sent, last_ack_sent, last_data_recv, last_ack_recv,
# pmtu, rcv_ssthresh, rtt, rttvar, snd_ssthresh, snd_cwnd, advmss, reordering, rcv_rtt,
# rcv_space, total_retrans (the 24th u32: 8 + 23 * 4 = 100), then u64 pacing_rate (104),
# max_pacing_rate (112), bytes_acked (120). The kernel copies min(optlen, its size), so a
# shorter answer means an older kernel without the field.
TCP_INFO = getattr(socket, "TCP_INFO", 11)
TCPI_TOTAL_RETRANS = 100
TCPI_BYTES_ACKED = 120
TIOCOUTQ = 0x5411  # SIOCOUTQ: bytes in the send queue not yet acknowledged

M32 = 0xFFFFFFFF

STOP = threading.Event()


class UsageError(Exception):
    pass


# ---------------------------------------------------------------------------------------
# The simulator's PRNG (src-main/sim/engine/rng.ts): sfc32 seeded through splitmix32.
# Every value is kept as an unsigned 32-bit integer; JS's `| 0` and `>>> 0` only change
# how the same bits are read.


def _splitmix32(st):
    st[0] = (st[0] + 0x9E3779B9) & M32
    z = st[0]
    z = ((z ^ (z >> 16)) * 0x85EBCA6B) & M32
    z = ((z ^ (z >> 13)) * 0xC2B2AE35) & M32
    return (z ^ (z >> 16)) & M32


class Rng:
    def __init__(self, seed, stream=0):
        seed = int(seed)
        lo = seed & M32
        hi = (seed // 4294967296) & M32
        st = [(lo ^ ((hi * 0x27D4EB2D) & M32) ^ (((stream + 1) * 0x165667B1) & M32)) & M32]
        self.a = _splitmix32(st)
        self.b = _splitmix32(st)
        self.c = _splitmix32(st)
        self.d = _splitmix32(st)
        for _ in range(12):
            self.next_u32()

    def next_u32(self):
        a, b, c = self.a, self.b, self.c
        d = (self.d + 1) & M32
        t = (a + b + d) & M32
        self.d = d
        self.a = b ^ (b >> 9)
        self.b = (c + (c << 3)) & M32
        r = ((c << 21) | (c >> 11)) & M32
        self.c = (r + t) & M32
        return t

    def next_float(self):
        return self.next_u32() / 4294967296.0

    def next_int(self, n):
        return int(math.floor((self.next_u32() / 4294967296.0) * n))


def js_round(x):
    """Math.round for the non-negative values used here (halves round up)."""
    return int(math.floor(x + 0.5))


# ---------------------------------------------------------------------------------------
# CDFs, exactly as src-main/sim/workload/cdf.ts reads and samples them.


def load_cdf(text):
    import re

    points = []
    last_line = 0
    for i, raw in enumerate(re.split(r"\r?\n", text)):
        line_no = i + 1
        body = raw.split("#", 1)[0].strip()
        if body == "":
            continue
        parts = re.split(r"[\s,]+", body)
        try:
            if len(parts) != 2:
                raise ValueError
            nbytes, prob = float(parts[0]), float(parts[1])
            if not (math.isfinite(nbytes) and math.isfinite(prob)):
                raise ValueError
        except ValueError:
            raise UsageError('CDF line %d: expected "bytes probability", got "%s"' % (line_no, body))
        if nbytes < 0 or prob < 0 or prob > 1 + 1e-9:
            raise UsageError("CDF line %d: bytes must be >= 0 and probability within [0, 1]" % line_no)
        if points and (nbytes < points[-1][0] or prob < points[-1][1]):
            raise UsageError("CDF line %d: values must not decrease" % line_no)
        points.append((nbytes, prob))
        last_line = line_no
    if not points:
        raise UsageError('CDF has no data lines: expected "bytes probability" per line')
    if abs(points[-1][1] - 1) > 1e-9:
        raise UsageError("CDF line %d: the last cumulative probability must be 1" % last_line)
    return points


def cdf_mean(points):
    mean = points[0][0] * points[0][1]
    for i in range(1, len(points)):
        b0, p0 = points[i - 1]
        b1, p1 = points[i]
        mean += ((p1 - p0) * (b0 + b1)) / 2
    return mean


def sample_cdf(points, u):
    i = 0
    while i < len(points) - 1 and points[i][1] <= u:
        i += 1
    if i == 0 or points[i][1] <= u:
        nbytes = points[i][0]
    else:
        b0, p0 = points[i - 1]
        b1, p1 = points[i]
        nbytes = b0 + ((u - p0) / (p1 - p0)) * (b1 - b0)
    return max(1, int(math.ceil(nbytes)))


# ---------------------------------------------------------------------------------------
# Schedules: lists of (offset_ns, size or None for unbounded, dst, group).


def poisson_schedule(points, load, link_bps, flows, seed, stream, dsts):
    """The simulator's poissonFlows for one source host (same draws, same order)."""
    mean = cdf_mean(points)
    mean_gap_ns = 1e9 / (load * link_bps / 8.0 / mean)
    rng = Rng(seed, stream)

    def gap():
        return max(1, js_round(-math.log(1 - rng.next_float()) * mean_gap_ns))

    out = []
    t = gap()
    for _ in range(flows):
        size = sample_cdf(points, rng.next_float())
        dst = dsts[rng.next_int(len(dsts))]
        out.append((t, size, dst, -1))
        t += gap()
    return out


def incast_schedule(events, rate_per_sec, flow_bytes, seed, dsts):
    rng = Rng(seed, INCAST_STREAM)
    mean_gap_ns = 1e9 / rate_per_sec
    out = []
    t = 0
    for e in range(events):
        t += max(1, js_round(-math.log(1 - rng.next_float()) * mean_gap_ns))
        out.append((t, flow_bytes, dsts[rng.next_int(len(dsts))], e))
    return out


# ---------------------------------------------------------------------------------------


def tcp_info(sock):
    """(total_retrans or None, bytes_acked or None) from TCP_INFO."""
    try:
        raw = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, 256)
    except OSError:
        return None, None
    retrans = struct.unpack_from("=I", raw, TCPI_TOTAL_RETRANS)[0] if len(raw) >= TCPI_TOTAL_RETRANS + 4 else None
    acked = struct.unpack_from("=Q", raw, TCPI_BYTES_ACKED)[0] if len(raw) >= TCPI_BYTES_ACKED + 8 else None
    return retrans, acked


def parse_addr(text):
    host, sep, port = text.strip().rpartition(":")
    if not sep or not host or not port.isdigit():
        raise UsageError("bad address %r: expected IP:PORT" % text)
    return host.strip("[]"), int(port)


def on_signal(signum, frame):
    STOP.set()


def install_signals():
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)


def recv_exact(sock, n):
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


# ---------------------------------------------------------------------------------------
# Server


def serve_conn(conn):
    try:
        with conn:
            header = recv_exact(conn, HEADER.size)
            if header is None:
                return
            magic, _fid, size = HEADER.unpack(header)
            if magic != MAGIC:
                return
            buf = bytearray(CHUNK)
            view = memoryview(buf)
            got = 0
            if size == UNBOUNDED:
                while True:
                    n = conn.recv_into(view)
                    if n == 0:
                        break
                    got += n
                conn.sendall(struct.pack("!Q", got))
                return
            while got < size:
                n = conn.recv_into(view[: min(CHUNK, size - got)])
                if n == 0:
                    return  # the sender went away: no ack
                got += n
            conn.sendall(b"\x01")
            # Wait for the sender to close, so the server never holds TIME_WAIT state.
            conn.recv(1)
    except OSError:
        pass


def run_server(args):
    lst = socket.socket(socket.AF_INET6 if ":" in args.bind else socket.AF_INET, socket.SOCK_STREAM)
    lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        lst.bind((args.bind, args.port))
    except OSError as e:
        print("p4lab_agent server: cannot listen on %s:%d: %s" % (args.bind, args.port, e), file=sys.stderr)
        return 1
    lst.listen(1024)
    lst.settimeout(0.2)
    print(json.dumps({"listening": "%s:%d" % (args.bind, lst.getsockname()[1])}, separators=(",", ":")), flush=True)
    accepted = 0
    while not STOP.is_set():
        try:
            conn, _ = lst.accept()
        except socket.timeout:
            continue
        except OSError:
            if STOP.is_set():
                break
            raise
        conn.settimeout(None)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        accepted += 1
        threading.Thread(target=serve_conn, args=(conn,), daemon=True).start()
    lst.close()
    print(json.dumps({"summary": {"mode": "server", "connections": accepted}}, separators=(",", ":")), flush=True)
    return 0


# ---------------------------------------------------------------------------------------
# Client


class Output:
    def __init__(self, path):
        self.lock = threading.Lock()
        self.closed = False
        self.f = sys.stdout if path == "-" else open(path, "w")

    def write(self, obj):
        line = json.dumps(obj, separators=(",", ":")) + "\n"
        with self.lock:
            if self.closed:  # a flow thread still running past the grace period
                return
            self.f.write(line)
            self.f.flush()

    def close(self):
        with self.lock:
            self.closed = True
            if self.f is not sys.stdout:
                self.f.close()


class Flow:
    __slots__ = ("id", "size", "dst", "group", "sock", "sent", "aborted", "retrans", "acked")

    def __init__(self, fid, size, dst, group):
        self.id = fid
        self.size = size  # None: unbounded
        self.dst = dst
        self.group = group
        self.sock = None
        self.sent = 0
        self.aborted = False
        self.retrans = None
        self.acked = None


class Client:
    def __init__(self, args, out):
        self.args = args
        self.out = out
        self.lock = threading.Lock()
        self.inflight = {}
        self.sem = threading.BoundedSemaphore(args.max_inflight)
        self.counts = {"finished": 0, "unfinished": 0, "failed": 0}
        self.bytes_acked = 0

    def record(self, flow, src, start_wall, fct_ns, retrans, delivered=None, error=None):
        line = {
            "id": flow.id,
            "src": src,
            "dst": ("[%s]:%d" if ":" in flow.dst[0] else "%s:%d") % flow.dst,
            "size": flow.size if flow.size is not None else -1,
            "start_ns": start_wall,
            "end_ns": start_wall + fct_ns if (fct_ns is not None and start_wall is not None) else None,
            "fct_ns": fct_ns,
            "retransmits": retrans,
        }
        if fct_ns is None:
            line["delivered"] = delivered if delivered is not None else 0
        if flow.group >= 0:
            line["group"] = flow.group
        if error is not None:
            line["error"] = error
        with self.lock:
            self.counts["finished" if fct_ns is not None else ("failed" if error else "unfinished")] += 1
        self.out.write(line)

    def run_flow(self, flow):
        src = self.args.src
        start_wall = None
        try:
            try:
                attempt_wall = time.time_ns()
                sock = socket.create_connection(flow.dst, timeout=self.args.connect_timeout)
            except OSError as e:
                self.record(flow, src, attempt_wall, None, None, 0, "connect: %s" % e)
                return
            with sock:
                sock.settimeout(None)
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                if src is None:
                    src = sock.getsockname()[0]
                with self.lock:
                    flow.sock = sock
                    self.inflight[flow.id] = flow
                    aborted = STOP.is_set()
                if aborted:
                    return
                size = flow.size if flow.size is not None else UNBOUNDED
                t0 = time.monotonic_ns()
                start_wall = time.time_ns()
                try:
                    sock.sendall(HEADER.pack(MAGIC, flow.id & M32, size))
                    if flow.size is not None:
                        left = flow.size
                        while left > 0:
                            n = sock.send(ZEROS[: min(CHUNK, left)])
                            left -= n
                            flow.sent += n
                        ack = sock.recv(1)
                        if ack != b"\x01":
                            raise OSError("connection closed before the ack")
                        fct = time.monotonic_ns() - t0
                        retrans, _ = tcp_info(sock)
                        self.record(flow, src, start_wall, fct, retrans)
                        return
                    sock.settimeout(0.5)  # wake up now and then to see STOP
                    while not STOP.is_set():
                        try:
                            flow.sent += sock.send(ZEROS)
                        except socket.timeout:
                            pass
                    # Unbounded: the end of the run. Half-close; the server answers with its count.
                    retrans, _ = tcp_info(sock)
                    sock.shutdown(socket.SHUT_WR)
                    sock.settimeout(5)
                    got = recv_exact(sock, 8)
                    delivered = struct.unpack("!Q", got)[0] if got else None
                    self.record(flow, src, start_wall, None, retrans, delivered)
                except OSError as e:
                    if flow.aborted or STOP.is_set():
                        delivered = flow.acked if flow.acked is not None else 0
                        self.record(flow, src, start_wall, None, flow.retrans, delivered)
                    else:
                        retrans, acked = tcp_info(sock)
                        delivered = max(0, acked - HEADER.size) if acked is not None else 0
                        self.record(flow, src, start_wall, None, retrans, delivered, "transfer: %s" % e)
        finally:
            with self.lock:
                self.inflight.pop(flow.id, None)
            self.sem.release()

    def abort_inflight(self):
        """Stop every sized flow in flight (unbounded ones end by themselves on STOP)."""
        with self.lock:
            flows = list(self.inflight.values())
        for flow in flows:
            if flow.size is None or flow.sock is None:
                continue
            retrans, acked = tcp_info(flow.sock)
            flow.retrans = retrans
            flow.acked = max(0, acked - HEADER.size) if acked is not None else None
            flow.aborted = True
            try:
                flow.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def run(self, schedule, duration_s):
        threads = []
        cap_waits = 0
        t0 = time.monotonic_ns()
        deadline = t0 + int(duration_s * 1e9) if duration_s else None
        for fid, (offset, size, dst, group) in enumerate(schedule):
            when = t0 + offset
            while not STOP.is_set():
                left = when - time.monotonic_ns()
                if left <= 0:
                    break
                STOP.wait(min(left / 1e9, 0.5))
            if STOP.is_set():
                break
            if not self.sem.acquire(blocking=False):
                cap_waits += 1
                while not STOP.is_set() and not self.sem.acquire(timeout=0.2):
                    pass
                if STOP.is_set():
                    break
            th = threading.Thread(target=self.run_flow, args=(Flow(fid, size, dst, group),), daemon=True)
            th.start()
            threads.append(th)
        # Wait for the flows, the duration, or a signal.
        for th in threads:
            while th.is_alive() and not STOP.is_set():
                if deadline is not None and time.monotonic_ns() >= deadline:
                    STOP.set()
                    break
                th.join(0.2)
        stopped = STOP.is_set()
        STOP.set()
        self.abort_inflight()
        end = time.monotonic() + self.args.grace
        for th in threads:
            th.join(max(0.0, end - time.monotonic()))
        return {
            "flows_planned": len(schedule),
            "flows_started": len(threads),
            "cap_waits": cap_waits,
            "stopped": stopped,
            "elapsed_ns": time.monotonic_ns() - t0,
        }


def run_client(args):
    dsts = [parse_addr(d) for d in args.dsts.split(",") if d.strip()]
    if not dsts:
        raise UsageError("--dsts needs at least one IP:PORT")
    if args.max_inflight < 1:
        raise UsageError("--max-inflight must be >= 1")
    schedule = []
    mode = "long-lived" if args.long_lived else ("incast" if args.incast else "poisson")
    if args.long_lived:
        if args.flows is None or args.flows < 1:
            raise UsageError("--long-lived needs --flows N >= 1")
        if args.size is not None and args.size < 1:
            raise UsageError("--size must be >= 1")
        schedule = [(0, args.size, dsts[i % len(dsts)], -1) for i in range(args.flows)]
    else:
        if args.cdf is not None or not args.incast:
            if args.cdf is None or args.load is None or args.link_bps is None or args.flows is None:
                raise UsageError("Poisson flows need --cdf, --load, --link-bps and --flows")
            if not (0 < args.load <= 1):
                raise UsageError("--load must be in (0, 1]")
            if not (args.link_bps > 0) or args.flows < 0:
                raise UsageError("--link-bps must be > 0 and --flows >= 0")
            try:
                with open(args.cdf) as f:
                    points = load_cdf(f.read())
            except OSError as e:
                raise UsageError("cannot read --cdf: %s" % e)
            schedule = poisson_schedule(points, args.load, args.link_bps, args.flows, args.seed, args.stream, dsts)
        if args.incast:
            if args.incast_bytes is None or args.events is None or args.incast_rate is None:
                raise UsageError("--incast needs --incast-bytes, --events and --incast-rate")
            if args.incast_bytes < 1 or args.events < 0 or not (args.incast_rate > 0):
                raise UsageError("--incast-bytes >= 1, --events >= 0, --incast-rate > 0")
            burst = incast_schedule(args.events, args.incast_rate, args.incast_bytes, args.seed, dsts)
            schedule = sorted(schedule + burst, key=lambda f: (f[0], f[3]))
    try:
        out = Output(args.out)
    except OSError as e:
        print("p4lab_agent client: cannot open --out: %s" % e, file=sys.stderr)
        return 1
    if args.start_at is not None:
        while not STOP.is_set():
            left = args.start_at - time.time_ns()
            if left <= 0:
                break
            STOP.wait(min(left / 1e9, 0.5))
    client = Client(args, out)
    t0_wall = time.time_ns()
    info = client.run(schedule if not STOP.is_set() else [], args.duration)
    summary = {
        "mode": mode,
        "seed": args.seed,
        "stream": args.stream,
        "t0_ns": t0_wall,
        "bytes_planned": sum(s for _, s, _, _ in schedule if s is not None),
    }
    summary.update(info)
    summary.update(client.counts)
    out.write({"summary": summary})
    out.close()
    return 0


# ---------------------------------------------------------------------------------------
# Probe


def parse_mac(text):
    parts = text.split(":")
    if len(parts) != 6:
        raise UsageError("bad MAC %r" % text)
    try:
        return bytes(int(p, 16) for p in parts)
    except ValueError:
        raise UsageError("bad MAC %r" % text)


def run_probe(args):
    try:
        ethertype = int(args.ethertype, 16)
        payload = bytes.fromhex(args.payload_hex)
    except ValueError:
        raise UsageError("--ethertype must be hex (0x....) and --payload-hex hex digits")
    if not (0 <= ethertype <= 0xFFFF) or not (args.period_us > 0):
        raise UsageError("--ethertype must fit 16 bits and --period-us be > 0")
    dst = parse_mac(args.dst_mac)
    try:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((args.iface, 0))
    except (OSError, AttributeError) as e:
        print("p4lab_agent probe: cannot open a raw socket on %s: %s" % (args.iface, e), file=sys.stderr)
        return 1
    src = s.getsockname()[4][:6]
    frame = dst + src + struct.pack("!H", ethertype) + payload
    frame += bytes(max(0, 60 - len(frame)))
    period = int(args.period_us * 1000)
    sent = late = errors = 0
    nxt = time.monotonic_ns()
    while not STOP.is_set() and (args.count is None or sent < args.count):
        now = time.monotonic_ns()
        if now < nxt:
            STOP.wait((nxt - now) / 1e9)
            continue
        if now - nxt > period:
            late += 1
            nxt = now  # behind by more than a period: no catch-up burst
        try:
            s.send(frame)
            sent += 1
        except OSError:
            errors += 1
        nxt += period
    s.close()
    print(json.dumps({"summary": {"mode": "probe", "sent": sent, "late": late, "errors": errors}}, separators=(",", ":")), flush=True)
    return 0


# ---------------------------------------------------------------------------------------
# Relay (the INT collector's socket on a BMv2 testbed)

SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)
RELAY_BATCH = 1024


def udp_counters():
    """This network namespace's UDP counters from /proc/net/snmp, or None."""
    try:
        with open("/proc/net/snmp") as f:
            rows = [line.split() for line in f if line.startswith("Udp:")]
        if len(rows) < 2:
            return None
        return dict(zip(rows[0][1:], (int(v) for v in rows[1][1:])))
    except (OSError, ValueError):
        return None


def counter_growth(before, after, name):
    if before is None or after is None or name not in before or name not in after:
        return None
    return after[name] - before[name]


def relay_line(data):
    """One line of the relay's output: arrival time (epoch ns) and the datagram in base64."""
    return b"%d %s\n" % (time.time_ns(), base64.b64encode(data))


def run_relay(args):
    if not (0 <= args.port <= 65535) or args.rcvbuf < 0:
        raise UsageError("--port must be 0-65535 and --rcvbuf >= 0")
    sock = socket.socket(socket.AF_INET6 if ":" in args.bind else socket.AF_INET, socket.SOCK_DGRAM)
    if args.rcvbuf:
        # FORCE (root) may exceed net.core.rmem_max; otherwise the kernel caps the request there.
        for opt in (SO_RCVBUFFORCE, socket.SO_RCVBUF):
            try:
                sock.setsockopt(socket.SOL_SOCKET, opt, args.rcvbuf)
                break
            except OSError:
                continue
    try:
        sock.bind((args.bind, args.port))
    except OSError as e:
        print("p4lab_agent relay: cannot bind udp %s:%d: %s" % (args.bind, args.port, e), file=sys.stderr)
        return 1
    sock.settimeout(0.2)  # wake up now and then to see STOP
    before = udp_counters()
    out = sys.stdout.buffer
    rcvbuf = sock.getsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF)
    line = json.dumps({"listening": "%s:%d" % (args.bind, sock.getsockname()[1]), "rcvbuf": rcvbuf}, separators=(",", ":"))
    out.write(line.encode() + b"\n")
    out.flush()
    datagrams = nbytes = errors = 0
    while not STOP.is_set():
        try:
            data = sock.recv(65535)
        except socket.timeout:
            continue
        except OSError:
            if STOP.is_set():
                break
            errors += 1
            continue
        batch = [relay_line(data)]
        nbytes += len(data)
        # Whatever else is queued goes out in the same write; the flush follows at once.
        while len(batch) < RELAY_BATCH:
            try:
                data = sock.recv(65535, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError, socket.timeout):
                break
            except OSError:
                errors += 1
                break
            batch.append(relay_line(data))
            nbytes += len(data)
        datagrams += len(batch)
        out.write(b"".join(batch))
        out.flush()
    sock.close()
    after = udp_counters()
    summary = {
        "mode": "relay",
        "datagrams": datagrams,
        "bytes": nbytes,
        "errors": errors,
        "kernel_drops": counter_growth(before, after, "RcvbufErrors"),
        "no_port": counter_growth(before, after, "NoPorts"),
    }
    out.write(json.dumps({"summary": summary}, separators=(",", ":")).encode() + b"\n")
    out.flush()
    return 0


# ---------------------------------------------------------------------------------------


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def build_parser():
    p = Parser(prog="p4lab_agent.py", description="p4lab traffic agent (see the file header)")
    sub = p.add_subparsers(dest="mode")
    s = sub.add_parser("server")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--bind", default="0.0.0.0")
    c = sub.add_parser("client")
    c.add_argument("--dsts", required=True)
    c.add_argument("--out", required=True)
    c.add_argument("--cdf")
    c.add_argument("--load", type=float)
    c.add_argument("--link-bps", type=float)
    c.add_argument("--flows", type=int)
    c.add_argument("--seed", type=int, default=1)
    c.add_argument("--stream", type=int, default=WORKLOAD_STREAM)
    c.add_argument("--incast", action="store_true")
    c.add_argument("--incast-bytes", type=int)
    c.add_argument("--events", type=int)
    c.add_argument("--incast-rate", type=float)
    c.add_argument("--long-lived", action="store_true")
    c.add_argument("--size", type=int)
    c.add_argument("--duration", type=float)
    c.add_argument("--start-at", type=int)
    c.add_argument("--max-inflight", type=int, default=512)
    c.add_argument("--connect-timeout", type=float, default=10.0)
    c.add_argument("--grace", type=float, default=5.0)
    c.add_argument("--src")
    r = sub.add_parser("probe")
    r.add_argument("--iface", required=True)
    r.add_argument("--ethertype", required=True)
    r.add_argument("--period-us", type=float, required=True)
    r.add_argument("--payload-hex", default="")
    r.add_argument("--dst-mac", default="ff:ff:ff:ff:ff:ff")
    r.add_argument("--count", type=int)
    y = sub.add_parser("relay")
    y.add_argument("--port", type=int, required=True)
    y.add_argument("--bind", default="0.0.0.0")
    y.add_argument("--rcvbuf", type=int, default=8 << 20)
    return p


def main(argv=None):
    install_signals()
    try:
        args = build_parser().parse_args(argv)
        if args.mode == "server":
            return run_server(args)
        if args.mode == "client":
            if args.incast and args.long_lived:
                raise UsageError("--incast and --long-lived exclude each other")
            return run_client(args)
        if args.mode == "probe":
            return run_probe(args)
        if args.mode == "relay":
            return run_relay(args)
        raise UsageError("give a mode: server, client, probe or relay")
    except UsageError as e:
        print("p4lab_agent: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
