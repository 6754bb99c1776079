"""p4lab traffic agent (p4lab_agent.py): the server and client modes (the flow protocol,
FCT and the output lines are described in p4lab_agent.py)."""

import json
import socket
import struct
import sys
import threading
import time

from p4lab_agent_common import (
    CHUNK,
    HEADER,
    MAGIC,
    STOP,
    UNBOUNDED,
    ZEROS,
    UsageError,
    parse_addr,
    recv_exact,
    tcp_info,
)
from p4lab_agent_workload import M32, incast_schedule, load_cdf, poisson_schedule


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
