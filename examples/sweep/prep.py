"""Splits data/points.csv into a training and a validation set, by row."""

import os
import sys

rows = open(sys.argv[1]).read().splitlines()
out = os.environ["KILN_OUT"]
with open(os.path.join(out, "train.csv"), "w") as t, open(os.path.join(out, "val.csv"), "w") as v:
    t.write(rows[0] + "\n")
    v.write(rows[0] + "\n")
    for i, r in enumerate(rows[1:]):
        (v if i % 5 == 4 else t).write(r + "\n")
