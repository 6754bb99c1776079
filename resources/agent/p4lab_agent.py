#!/usr/bin/env python3
"""p4lab traffic agent: Python 3.8+, standard library only.

p4lab uploads this file and its modules (p4lab_agent_*.py, beside it) to every testbed host
and runs this one in the host namespaces; it finds the modules in its own folder:
  p4lab_agent_common.py    the flow header, signals, TCP_INFO, usage errors
  p4lab_agent_workload.py  the simulator's PRNG, CDFs and arrival schedules
  p4lab_agent_flows.py     server and client
  p4lab_agent_raw.py       probe and relay

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
import sys

# The run directory holds what p4lab uploaded and the run's output, no bytecode cache.
sys.dont_write_bytecode = True

from p4lab_agent_common import UsageError, install_signals  # noqa: E402
from p4lab_agent_flows import run_client, run_server  # noqa: E402
from p4lab_agent_raw import run_probe, run_relay  # noqa: E402
from p4lab_agent_workload import WORKLOAD_STREAM, Rng, cdf_mean, incast_schedule, load_cdf, poisson_schedule, sample_cdf  # noqa: E402, F401 (the tests' entry points)


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
