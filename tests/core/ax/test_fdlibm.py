"""V8's Math.log, bit for bit (values captured from Node 20 where CPython's log differs)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from axmem_gui.core.ax.fdlibm import js_log

# (N, df, Math.log(1 + N / df) as printed by Node 20); CPython's math.log differs on each.
V8_VALUES = [
    (2, 1, 1.0986122886681096),
    (5, 3, 0.9808292530117264),
    (8, 5, 0.9555114450274365),
    (13, 5, 1.2809338454620645),
    (13, 7, 1.0498221244986778),
    (13, 10, 0.832909122935104),
    (101, 62, 0.9666158157616707),
    (143, 86, 0.979374707300732),
    (195, 1, 5.278114659230518),
    (245, 92, 1.2982943533033215),
    (277, 169, 0.9704202370969905),
    (297, 248, 0.7873570484982617),
    (307, 149, 1.1185465035689268),
    (310, 71, 1.6801194980853857),
    (313, 85, 1.543800748794121),
    (313, 173, 1.0329170294027148),
    (319, 151, 1.13545285788918),
    (384, 41, 2.3385171022201092),
]


@pytest.mark.parametrize(("n", "df", "v8"), V8_VALUES)
def test_matches_v8_where_cpython_differs(n: int, df: int, v8: float) -> None:
    x = 1 + n / df
    assert math.log(x) != v8  # the reason this port exists
    assert js_log(x) == v8


def test_special_values() -> None:
    assert js_log(1.0) == 0.0
    assert js_log(0.0) == -math.inf
    assert js_log(-0.0) == -math.inf
    assert math.isnan(js_log(-1.0))
    assert js_log(math.inf) == math.inf
    assert math.isnan(js_log(math.nan))
    assert js_log(math.e) == pytest.approx(1.0, abs=1e-15)
    # subnormal input goes through the scaling branch
    assert js_log(5e-324) == pytest.approx(-744.4400719213812, abs=1e-12)


@given(st.floats(min_value=1e-300, max_value=1e300, allow_nan=False, allow_infinity=False))
def test_within_one_ulp_of_cpython(x: float) -> None:
    got, ref = js_log(x), math.log(x)
    assert abs(got - ref) <= 2 * math.ulp(ref) or got == ref
