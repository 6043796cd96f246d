"""RFC 8785 (JSON Canonicalization Scheme), as toolledger-core's CanonicalJson writes it.

Object members sorted by UTF-16 code units, numbers as ECMAScript prints a double (integers
past 2**53 become doubles, as in JCS), strings escaped only where JSON requires, no whitespace.
The vectors in clients/testdata/canonical-json.json are shared with the Java and TypeScript sides.
"""

from __future__ import annotations

import json
import math
from typing import Any

_EXACT = 1 << 53


def canonicalize(value: Any) -> str:
    """The canonical form of a JSON value (dict, list, str, int, float, bool, None)."""
    out: list[str] = []
    _write(value, out)
    return "".join(out)


def same_json(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same intent: equal canonical forms."""
    return canonicalize(a) == canonicalize(b)


def _write(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, int):
        out.append(str(value) if abs(value) < _EXACT else es_number(float(value)))
    elif isinstance(value, float):
        out.append(es_number(value))
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, element in enumerate(value):
            if i:
                out.append(",")
            _write(element, out)
        out.append("]")
    elif isinstance(value, dict):
        for k in value:
            if not isinstance(k, str):
                raise TypeError("object member names must be strings")
        out.append("{")
        for i, k in enumerate(sorted(value, key=lambda k: k.encode("utf-16-be", "surrogatepass"))):
            if i:
                out.append(",")
            out.append(_string(k))
            out.append(":")
            _write(value[k], out)
        out.append("}")
    else:
        raise TypeError(f"a {type(value).__name__} has no JSON form and cannot be canonicalized")


def _string(s: str) -> str:
    for i, c in enumerate(s):
        if 0xD800 <= ord(c) <= 0xDFFF:
            raise ValueError(f"a string holds a lone surrogate at position {i + 1}; it is not Unicode")
    # json.dumps escapes ", \\, \b \f \n \r \t and other controls as \u00xx: RFC 8785's spelling.
    return json.dumps(s, ensure_ascii=False)


def es_number(x: float) -> str:
    """A double as ECMAScript's Number.prototype.toString writes it (RFC 8785 section 3.2.2.3)."""
    if math.isnan(x) or math.isinf(x):
        raise ValueError("a number that is not finite has no JCS form")
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    r = repr(abs(x))  # the shortest digits that round-trip, like ECMAScript
    mantissa, _, exp = r.partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    # value = 0.digits * 10**n, i.e. digits * 10**(n - k)
    n = len(whole) + (int(exp) if exp else 0)
    n -= len(whole + frac) - len((whole + frac).lstrip("0"))
    digits = digits.rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mark = "+" if e >= 0 else "-"
        body = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + mark + str(abs(e))
    return sign + body
