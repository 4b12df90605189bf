#!/bin/bash
# What profiling costs the server: slicebench's OLTP steps against one
# private mariadbd, without the profile, with it at its default rate
# (--profile yes: the CPU clock at 199 Hz a CPU and the switch records),
# and with the stacks at every switch (--profile-off-cpu yes), in rounds
# of a rotating order so that drift hits all three; prints each's TPS per
# round and the ratio to the unprofiled steps' (the geometric means) with
# Welch's 95% interval on log TPS.  The profile's cost is what the
# default rate's ratio falls short of 1 (issue 44: under 3%).
#
#   bench/profile-overhead.sh [--time SECONDS] [--threads N] [--rounds N]
set -euo pipefail

time_s=10 threads=2 rounds=6 tables=2 table_size=10000
while [ $# -gt 0 ]; do
	case $1 in
	--time) time_s=$2; shift 2 ;;
	--threads) threads=$2; shift 2 ;;
	--rounds) rounds=$2; shift 2 ;;
	*) echo "usage: $0 [--time SECONDS] [--threads N] [--rounds N]" >&2; exit 2 ;;
	esac
done

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
need_tools "$sb" mariadbd mariadb-install-db jq python3
make_workdir
start_mariadb
mariadb -S "$sock" -uroot -e 'CREATE DATABASE sbtest'
"$sb" prepare --socket "$sock" --tables $tables --table-size $table_size >/dev/null

# One step of a variant: its TPS appended to $work/VARIANT.
variant_step() {
	local name=$1
	shift
	"$sb" sweep --socket "$sock" --server-pid "$server_pid" --tables $tables --table-size $table_size \
		--threads "$threads" --warmup 2s --duration "${time_s}s" --json "$@" >"$work/out"
	jq -r '.steps[0].tps' "$work/out" >>"$work/$name"
}

echo "load before: $(cat /proc/loadavg)"
echo "# $threads threads, ${time_s}s steps, $rounds rounds, each its order rotated"
variants=(none default off_cpu)
for r in $(seq "$rounds"); do
	for k in 0 1 2; do
		v=${variants[$(((r + k) % 3))]}
		case $v in
		none) variant_step none ;;
		default) variant_step default --profile yes ;;
		off_cpu) variant_step off_cpu --profile yes --profile-off-cpu yes ;;
		esac
	done
done
echo "load after: $(cat /proc/loadavg)"
python3 - "$work" <<'PY'
import math, sys
from statistics import mean, variance
work = sys.argv[1]
def read(n): return [float(x) for x in open(f"{work}/{n}").read().split()]
def t975(df):
    # Student's 0.975 quantile by bisection on the regularised beta
    from math import lgamma, exp, log
    def cdf(t):
        x = df / (df + t * t)
        # incomplete beta by continued fraction (Numerical Recipes' betacf)
        a, b = df / 2, 0.5
        def betacf(x):
            qab, qap, qam = a + b, a + 1, a - 1
            c, d = 1.0, 1 - qab * x / qap
            d = 1 / d; h = d
            for m in range(1, 200):
                m2 = 2 * m
                aa = m * (b - m) * x / ((a + m2) * (qam + m2))
                d = 1 + aa * d; c = 1 + aa / c; d = 1 / d; h *= d * c
                aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
                d = 1 + aa * d; c = 1 + aa / c; d = 1 / d; h *= d * c
            return h
        bt = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log(1 - x))
        return 1 - 0.5 * bt * betacf(x) / a
    lo, hi = 0.0, 100.0
    for _ in range(100):
        mid = (lo + hi) / 2
        (lo, hi) = (mid, hi) if cdf(mid) < 0.975 else (lo, mid)
    return lo
base = read("none")
print(f"{'variant':10} {'TPS by round':50} {'ratio to none (95%)':>28}")
for v in ("none", "default", "off_cpu"):
    x = read(v)
    la, lb = [math.log(t) for t in x], [math.log(t) for t in base]
    line = " ".join(f"{t:.0f}" for t in x)
    if v == "none":
        print(f"{v:10} {line:50}")
        continue
    d = mean(la) - mean(lb)
    va, vb = variance(la) / len(la), variance(lb) / len(lb)
    se = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(la) - 1) + vb ** 2 / (len(lb) - 1))
    h = t975(df) * se
    print(f"{v:10} {line:50} {math.exp(d):.3f} ({math.exp(d - h):.3f}-{math.exp(d + h):.3f})")
PY
