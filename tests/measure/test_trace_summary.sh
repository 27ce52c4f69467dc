#!/usr/bin/env bash
# scripts/trace-summary.py (bench/trace/cuda_trace.c's CSV) on a made-up
# trace whose figures are known: the window from the launch of k_alpha to
# cudaGraphLaunch is 8000 ns, the GPU busy 4000 ns (two kernels and a
# copy), idle 4000 ns in 4 gaps, 2000 of them inside the main thread's
# cudaMalloc (whose nested driver call is not counted again) and 800 in no
# call; the second thread's call counts for it alone; --json writes the
# same. Refusals (exit 2, one line): no file, not a trace, no kernel
# matching --start, occurrence 0, no --end call, both --end and
# --length-ms, a last line cut short. Skipped (77) without
# python3.
set -u
. "$(dirname "$0")/../cli_harness.sh"
command -v python3 >/dev/null || { echo "no python3: skipped"; exit 77; }
src=${CMRS_SOURCE_DIR:?}
sum="$src/scripts/trace-summary.py"

cat >"$tmp/t.csv" <<'CSV'
kind,name,start,end,stream,thread,corr,bytes
rt,cudaLaunchKernel_v7000,1000,1100,0,7,1,0
kern,k_alpha,1200,3200,13,0,1,0
rt,cudaStreamSynchronize_v3020,2000,4000,0,8,9,0
rt,cudaMalloc_v3020,3300,5300,0,7,2,0
drv,cuMemAlloc_v2,3400,5200,0,7,2,0
rt,cudaLaunchKernel_v7000,5300,5400,0,7,3,0
kern,k_beta,5400,6400,13,0,3,0
rt,cudaMemcpyAsync_v3020,6500,8500,0,7,4,0
copy,kind2,6600,7600,13,0,4,1000000
rt,cudaGraphLaunch_v10000,9000,9100,0,7,5,0
kern,k_alpha,9200,9300,13,0,5,0
CSV

expect 0 python3 "$sum" "$tmp/t.csv" --start k_alpha --end GraphLaunch --json "$tmp/s.json"
has out "^window 0.008 ms: GPU busy 0.004 ms (50%), idle 0.004 ms in 4 gaps" "window"
expect 0 python3 - "$tmp/s.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
idle = {c["call"]: c["ms"] for c in s["idle_by_call"]}
thr = {t["thread"]: t["ms_in_calls"] for t in s["threads"]}
work = {w["name"]: (w["ms"], w["count"], w["bytes"]) for w in s["device_work"]}
close = lambda a, b: abs(a - b) < 1e-12
checks = [
    close(s["window_ms"], 0.008), close(s["busy_ms"], 0.004), s["gaps"] == 4,
    close(idle["cudaMalloc_v3020"], 0.002), close(idle["(host code)"], 0.0008),
    close(idle["cudaMemcpyAsync_v3020"], 0.001), close(idle["cudaLaunchKernel_v7000"], 0.0002),
    s["main_thread"] == "7", close(thr["7"], 0.0042), close(thr["8"], 0.002),
    work["kern:k_alpha"][:2] == (0.002, 1), work["copy:kind2"][2] == 1000000,
    close(s["longest_gaps"][0]["ms"], 0.0022),
]
sys.exit(0 if all(checks) else print(checks, s) or 1)
PY
# the second k_alpha, 0.0001 ms long, to the trace's end
expect 0 python3 "$sum" "$tmp/t.csv" --start 'k_alpha#2' --length-ms 0.0005
has out "GPU busy 0.000 ms (20%)" "second occurrence, fixed length"

expect 2 python3 "$sum" "$tmp/none.csv" --start k
has err "cannot read" "no file"; one_line_err "no file"
printf 'a,b\n1,2\n' >"$tmp/bad.csv"
expect 2 python3 "$sum" "$tmp/bad.csv" --start k
has err "not a cuda_trace CSV" "not a trace"; one_line_err "not a trace"
expect 2 python3 "$sum" "$tmp/t.csv" --start k_gamma
has err "0 kernel(s) match 'k_gamma'" "no match"; one_line_err "no match"
expect 2 python3 "$sum" "$tmp/t.csv" --start 'k_alpha#0'
has err "must be 1 or more" "occurrence 0"; one_line_err "occurrence 0"
expect 2 python3 "$sum" "$tmp/t.csv" --start k_alpha --end cudaNothing
has err "no runtime call matching 'cudaNothing'" "no end"; one_line_err "no end"
expect 2 python3 "$sum" "$tmp/t.csv" --start k_alpha --end Graph --length-ms 1
has err "give one" "end and length"; one_line_err "end and length"
head -c -12 "$tmp/t.csv" >"$tmp/cut.csv" # the last line cut short
expect 2 python3 "$sum" "$tmp/cut.csv" --start k_alpha
has err "bad or cut line" "cut line"; one_line_err "cut line"
finish
