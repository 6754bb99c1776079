"""p4lab traffic agent (p4lab_agent.py): the workload generator, the very one of p4lab's
simulator (same PRNG, same draw order), so the same seed and stream give the same sizes and
arrival times."""

import math

from p4lab_agent_common import UsageError

# Streams of the simulator's PRNG (src-main/sim/workload): Poisson workload 1, incast 3.
WORKLOAD_STREAM = 1
INCAST_STREAM = 3

M32 = 0xFFFFFFFF


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
