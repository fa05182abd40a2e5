"""Console metrics as verl's Tracking prints them with its "console"
backend (verl/utils/logger/aggregate_logger.py): one line per step,
"step:N - key:value - ...", numbers only, each as pprint.pformat writes it."""

import numbers
import pprint


def log(data, step):
    parts = ["step:%d" % step]
    for key, value in data.items():
        if isinstance(value, numbers.Number):
            parts.append("%s:%s" % (key, pprint.pformat(value)))
    print(" - ".join(parts), flush=True)
