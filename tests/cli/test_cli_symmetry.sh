#!/usr/bin/env bash
# The CG warning for a matrix that is not symmetric (app/solve/symmetry.c, checked
# in a thread during setup): printed for CG, exactly once, before the solve's
# report (after the solve); not for a symmetric matrix nor for BiCGStab; not after a failure
# (one error line only). Values unsymmetric with a symmetric pattern, and a
# pattern that is not symmetric at all.
set -u
cmrs=$1
. "$(dirname "$0")/../cli_harness.sh"
# 3x3, pattern symmetric, values not (a12 = -1, a21 = -2)
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 7\n1 1 4\n1 2 -1\n2 1 -2\n2 2 4\n2 3 -1\n3 2 -1\n3 3 4\n' >"$tmp/val.mtx"
# pattern not symmetric (a13 without a31)
printf '%%%%MatrixMarket matrix coordinate real general\n3 3 6\n1 1 4\n1 3 -1\n2 2 4\n2 3 -1\n3 2 -1\n3 3 4\n' >"$tmp/pat.mtx"
# symmetric
printf '%%%%MatrixMarket matrix coordinate real symmetric\n3 3 5\n1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n' >"$tmp/sym.mtx"
# CG on val stalls (exit 1, not converged); on pat it converges.
for m in val pat; do
  code=0; [ $m = val ] && code=1
  expect $code "$cmrs" solve "$tmp/$m.mtx" --device cpu -q
  has err "the matrix is not symmetric: CG may fail" "$m: warning"
  [ "$(grep -c 'not symmetric' "$tmp/err")" -eq 1 ] && ok || bad "$m: warned more than once"
  expect 0 "$cmrs" solve "$tmp/$m.mtx" --device cpu -q --solver bicgstab
  grep -q "not symmetric" "$tmp/err" && bad "$m: bicgstab warned" || ok
  expect $code "$cmrs" compare "$tmp/$m.mtx" --device cpu -q
  has err "the matrix is not symmetric" "$m: compare warns"
done
expect 0 "$cmrs" solve "$tmp/sym.mtx" --device cpu -q
grep -q "not symmetric" "$tmp/err" && bad "symmetric: warned" || ok
# A failure after the load (a bad option value the setup refuses): one line.
expect 2 "$cmrs" solve "$tmp/val.mtx" --device cpu -q --precond chebyshev --cheb-ratio 0.5
one_line_err "failed setup"
finish
