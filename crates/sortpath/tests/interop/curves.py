"""Oracle for sortpath's space-filling-curve interop tests: hilbertcurve and pymorton.

Reads lines from stdin and prints one answer per line:
  hilbert X Y      -> order-32 2D Hilbert distance (hilbertcurve, p=32, n=2)
  hilbert-inv D    -> "X Y" for a distance
  morton2 X Y      -> pymorton.interleave2 (coordinates < 2^16)
  morton3 X Y Z    -> pymorton.interleave3 (coordinates < 2^10)
  morton2-inv M    -> "X Y" from pymorton.deinterleave2
"""
import sys

import pymorton
from hilbertcurve.hilbertcurve import HilbertCurve

curve = HilbertCurve(32, 2)

for line in sys.stdin:
    op, *args = line.split()
    values = [int(a) for a in args]
    if op == "hilbert":
        print(curve.distance_from_point(values))
    elif op == "hilbert-inv":
        print(*curve.point_from_distance(values[0]))
    elif op == "morton2":
        print(pymorton.interleave2(*values))
    elif op == "morton3":
        print(pymorton.interleave3(*values))
    elif op == "morton2-inv":
        print(*pymorton.deinterleave2(values[0]))
    else:
        raise SystemExit("unknown op " + op)
