"""p4lab traffic agent (p4lab_agent.py): what every mode shares. The flow header, the stop
event set by SIGTERM/SIGINT, TCP_INFO, addresses, usage errors."""

import signal
import socket
import struct
import threading

MAGIC = b"P4LA"
HEADER = struct.Struct("!4sIQ")
UNBOUNDED = (1 << 64) - 1
CHUNK = 256 * 1024
ZEROS = memoryview(bytearray(CHUNK))

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

STOP = threading.Event()


class UsageError(Exception):
    pass


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
