"""`Math.log` exactly as V8 computes it.

V8 implements `Math.log` with a port of fdlibm's `e_log.c` (`__ieee754_log`). CPython's
`math.log` calls the C library instead, which differs in the last bit for some arguments
(e.g. ln 3). Ax's idf is `Math.log(1 + N / df)`, and scores must match the TypeScript
package bit for bit, so this module re-implements the fdlibm algorithm with Python floats
(IEEE doubles with round-to-nearest, the same arithmetic V8 uses).

Algorithm (fdlibm): write x = 2^k * (1 + f) with sqrt(2)/2 < 1 + f < sqrt(2), then
log(1 + f) = f - s*(f - R) with s = f / (2 + f) and R a minimax polynomial in s^2;
log(x) = k*ln2_hi + (f - (hfsq - (s*(hfsq + R) + k*ln2_lo))).
"""

from __future__ import annotations

import math
import struct

_LN2_HI = 6.93147180369123816490e-01  # 0x3fe62e42 fee00000
_LN2_LO = 1.90821492927058770002e-10  # 0x3dea39ef 35793c76
_TWO54 = 1.80143985094819840000e16  # 0x43500000 00000000
_LG1 = 6.666666666666735130e-01  # 0x3FE55555 55555593
_LG2 = 3.999999999940941908e-01  # 0x3FD99999 9997FA04
_LG3 = 2.857142874366239149e-01  # 0x3FD24924 94229359
_LG4 = 2.222219843214978396e-01  # 0x3FCC71C5 1D8E78AF
_LG5 = 1.818357216161805012e-01  # 0x3FC74664 96CB03DE
_LG6 = 1.531383769920937332e-01  # 0x3FC39A09 D078C69F
_LG7 = 1.479819860511658591e-01  # 0x3FC2F112 DF3E5244


def _words(x: float) -> tuple[int, int]:
    """High and low 32-bit words of the double (high word signed, like fdlibm's __HI)."""
    bits = struct.unpack("<q", struct.pack("<d", x))[0]
    return bits >> 32, bits & 0xFFFFFFFF


def _with_high(x: float, high: int) -> float:
    low: int = struct.unpack("<Q", struct.pack("<d", x))[0] & 0xFFFFFFFF
    value: float = struct.unpack("<d", struct.pack("<Q", ((high & 0xFFFFFFFF) << 32) | low))[0]
    return value


def js_log(x: float) -> float:
    """Natural logarithm, bit-identical to V8's `Math.log`."""
    hx, lx = _words(x)
    k = 0
    if hx < 0x00100000:  # x < 2**-1022: zero, negative or subnormal
        if ((hx & 0x7FFFFFFF) | lx) == 0:
            return -math.inf
        if hx < 0:
            return math.nan
        k -= 54
        x *= _TWO54  # scale a subnormal up
        hx, _ = _words(x)
    if hx >= 0x7FF00000:
        return x + x  # inf or NaN
    k += (hx >> 20) - 1023
    hx &= 0x000FFFFF
    i = (hx + 0x95F64) & 0x100000
    x = _with_high(x, hx | (i ^ 0x3FF00000))  # normalize x or x/2
    k += i >> 20
    f = x - 1.0
    if (0x000FFFFF & (2 + hx)) < 3:  # -2**-20 <= f < 2**-20
        if f == 0.0:
            if k == 0:
                return 0.0
            dk = float(k)
            return dk * _LN2_HI + dk * _LN2_LO
        r = f * f * (0.5 - 0.33333333333333333 * f)
        if k == 0:
            return f - r
        dk = float(k)
        return dk * _LN2_HI - ((r - dk * _LN2_LO) - f)
    s = f / (2.0 + f)
    dk = float(k)
    z = s * s
    i = hx - 0x6147A
    w = z * z
    j = 0x6B851 - hx
    t1 = w * (_LG2 + w * (_LG4 + w * _LG6))
    t2 = z * (_LG1 + w * (_LG3 + w * (_LG5 + w * _LG7)))
    i |= j
    r = t2 + t1
    if i > 0:
        hfsq = 0.5 * f * f
        if k == 0:
            return f - (hfsq - s * (hfsq + r))
        return dk * _LN2_HI - ((hfsq - (s * (hfsq + r) + dk * _LN2_LO)) - f)
    if k == 0:
        return f - s * (f - r)
    return dk * _LN2_HI - ((s * (f - r) - dk * _LN2_LO) - f)
