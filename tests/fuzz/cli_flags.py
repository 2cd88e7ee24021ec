#!/usr/bin/env python3
"""CLI-level fuzz over flag values: every numeric flag of `run` and the positional numbers of `stats`, given
hostile values (subnormals, hex and binary literals, exponents for integers, Unicode and full-width digits,
huge counts, signs, blanks, separators, inf and nan), one at a time on a tiny run. Each command must end in
exit 0 or 2 (with a message), never 4, a signal or a hang; a run that is accepted must leave a valid result.
Seeded (FUZZ_SEED, default 1), so CI sees the same cases every time.

  cli_flags.py RECALLBENCH [CASES]      (ci/fuzz runs it with 120 cases)
"""
import os
import random
import subprocess
import sys
import tempfile

rb = os.path.abspath(sys.argv[1])
cases = int(sys.argv[2]) if len(sys.argv) > 2 else 120
rng = random.Random(int(os.environ.get("FUZZ_SEED", "1")))

HOSTILE = ["1e-320", "-1e-320", "4.9e-324", "-0", "0", "0x10", "0X1p-3", "0b11", "0o7", "017", "1e3", "1E3", "1.", ".5",
           "e5", "5e", "5e+", "+5", "-1", "--5", "1,000", "1_000", "1 000", " 5", "5 ", "\u00a05", "\u0661\u0662",
           "\uff11\uff12", "\u00b2", "\u2155", "9" * 30, "4294967297", "9223372036854775808", "-9223372036854775809",
           "1e308", "1e309", "-1e309", "inf", "-inf", "Infinity", "nan", "NaN", "", "abc", "5abc", "0.0.1", "1/2", "%d",
           "\x7f", "🙂", "1e-5", "3", "64", "0.5"]
RUN_FLAGS = ["--pairs", "--length", "--vocab", "--seed-offset", "--retries", "--d-model", "--layers", "--budget",
             "--steps", "--batch", "--lr", "--weight-decay", "--warmup", "--eval-every", "--eval-examples",
             "--threshold", "--threads", "--jobs"]
BASE = {"--pairs": "2", "--length": "16", "--vocab": "32", "--d-model": "8", "--layers": "1", "--steps": "2",
        "--batch": "2", "--eval-every": "1", "--eval-examples": "4", "--jobs": "1"}
STATS = [["fisher", 4], ["binom-ci", 2], ["binom-test", 2], ["power", 0]]

failures = []


def check(args, tmp):
    try:
        p = subprocess.run([rb, *args], capture_output=True, text=True, timeout=120, cwd=tmp)
    except subprocess.TimeoutExpired:
        failures.append("hang (> 120 s): recallbench %r" % (args,))
        return None
    out = p.stdout + p.stderr
    if p.returncode not in (0, 2) or "internal error" in out:
        failures.append("exit %d: recallbench %r\n%s" % (p.returncode, args, out[-600:]))
    elif p.returncode == 2 and not p.stderr.strip():
        failures.append("exit 2 without a message: recallbench %r" % (args,))
    return p.returncode


with tempfile.TemporaryDirectory() as tmp:
    for i in range(cases):
        flag, value = rng.choice(RUN_FLAGS), rng.choice(HOSTILE)
        args = ["run", "--cell", "diag", "--task", "mqar", "--out", os.path.join(tmp, "r%d" % i)]
        for k, v in BASE.items():
            if k != flag:
                args += [k, v]
        args += [flag, value] if value != "" else [flag + "="]
        rc = check(args, tmp)
        if rc == 0 and not os.listdir(os.path.join(tmp, "r%d" % i, "runs")):
            failures.append("exit 0 but no result: recallbench %r" % (args,))
    for i in range(cases * 4):  # the statistics are cheap: more cases
        name, positional = rng.choice(STATS)
        args = ["stats", name]
        if name == "power":
            args += ["--p1", rng.choice(HOSTILE), "--p2", "0.1", "--n", rng.choice(HOSTILE)]
        else:
            nums = [rng.choice(["3", "7", "10"]) for _ in range(positional)]
            nums[rng.randrange(positional)] = rng.choice(HOSTILE)
            args += ["--"] + nums if any(n.startswith("-") for n in nums) else nums
        check(args, tmp)

print("cli flags: %d run cases, %d stats cases, %d failures" % (cases, cases * 4, len(failures)))
if failures:
    sys.exit("FAIL:\n" + "\n".join(failures[:20]))
