"""p4lab traffic agent (p4lab_agent.py): the raw-socket modes: probe (HULA/DHLB probe frames)
and relay (the INT collector's UDP socket)."""

import base64
import json
import socket
import struct
import sys
import time

from p4lab_agent_common import STOP, UsageError


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
