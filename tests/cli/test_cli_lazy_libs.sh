#!/usr/bin/env bash
# Startup (issue 27, item 6): cuBLAS and cuSPARSE are loaded on
# first use (base/gpu/cuda_dl.h), so commands that need none of them load
# none: --version, gen, info, convert and a CPU solve (nor the driver). Checked with the
# loader's own trace (LD_DEBUG=files, which names every object loaded,
# DT_NEEDED or dlopen; each trace must name libcudart, which cmrs links,
# or the check itself is broken); and `cmrs --version` stays small (max RSS from
# /usr/bin/time, GNU time: scripts/setup.sh installs it). A build without
# CUDA (CMRS_CUDA=OFF) links no libcudart: there no CUDA library at all may
# be loaded, the runtime included.
set -u
cmrs=$1
. "$(dirname "$0")/../cli_harness.sh"
unset LD_PRELOAD CMRS_CUDA_LIBDIR
# And the driver (libcuda, which the runtime opens at the first CUDA call:
# starting it costs 0.13-0.24 s on a GPU machine), for commands that need
# no GPU: --device cpu asks CUDA nothing.
libs='libcublas|libcublasLt|libcusparse|libcusolver|libnvJitLink|libcuda\.so'
cudart=1
if command -v ldd >/dev/null && ! ldd "$cmrs" | grep -q libcudart; then
  cudart=0 libs="$libs|libcudart|libnccl"
fi

# loaded NAME cmd...: runs cmd under LD_DEBUG=files (the trace to files
# $tmp/ld.NAME.PID); $tmp/libs.NAME: the CUDA math libraries it loaded.
loaded() {
  local name=$1; shift
  rm -f "$tmp/ld.$name".*
  LD_DEBUG=files LD_DEBUG_OUTPUT="$tmp/ld.$name" "$@" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ "$rc" -eq 0 ] && ok || bad "$name: $* -> exit $rc: $(head -c 300 "$tmp/err")"
  if ! ls "$tmp/ld.$name".* >/dev/null 2>&1; then
    bad "$name: no LD_DEBUG trace written"; : >"$tmp/libs.$name"; return
  fi
  grep -hoE "file=[^ ]*($libs)[^ ]*" "$tmp/ld.$name".* | sort -u >"$tmp/libs.$name"
  # Control: the trace names the CUDA runtime, which cmrs does link.
  [ $cudart = 0 ] || grep -qE "file=[^ ]*libcudart" "$tmp/ld.$name".* && ok ||
    bad "$name: the LD_DEBUG trace does not name libcudart (check broken?)"
}
none_loaded() {
  loaded "$@"
  [ -s "$tmp/libs.$1" ] && bad "$1 loads $(tr '\n' ' ' <"$tmp/libs.$1")" || ok
}

none_loaded version "$cmrs" --version
none_loaded gen "$cmrs" gen poisson3d --n 12 -o "$tmp/p.h5"
none_loaded info "$cmrs" info "$tmp/p.h5"
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 -1\n2 2 4\n3 3 4\n' >"$tmp/a.mtx"
none_loaded convert "$cmrs" convert "$tmp/a.mtx" -o "$tmp/a.h5"
none_loaded solve_cpu "$cmrs" solve "$tmp/p.h5" --device cpu
none_loaded solve_cpu_amg "$cmrs" solve "$tmp/p.h5" --device cpu --precond amg
# No DT_NEEDED on them either (ldd: what the loader would map at start).
if command -v ldd >/dev/null; then
  ldd "$cmrs" >"$tmp/ldd" 2>&1
  grep -qE "$libs" "$tmp/ldd" && bad "ldd cmrs: $(grep -E "$libs" "$tmp/ldd")" || ok
fi

# Max RSS of `cmrs --version`: ~270 MB when the libraries were linked.
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$tmp/rss" "$cmrs" --version >/dev/null 2>&1
  kb=$(tail -n 1 "$tmp/rss")
  if [ -n "$kb" ] && [ "$kb" -lt 61440 ] 2>/dev/null; then ok
  else bad "cmrs --version max RSS ${kb:-?} KB, want < 60 MB"; fi
  echo "cmrs --version: max RSS $kb KB"
else
  echo "no /usr/bin/time (Debian package 'time'): RSS check skipped"
fi
finish
