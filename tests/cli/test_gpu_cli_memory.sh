#!/usr/bin/env bash
# A matrix that cannot fit in the GPU's free memory is refused before the
# GPU setup allocates anything: exit 4, one line naming the GPU memory it
# needs and has, no output file. CMRS_GPU_MEM_AVAILABLE_BYTES stands in
# for cudaMemGetInfo's free bytes. Skipped (77) only where no GPU is found.
set -u
cmrs=$1
. "$(dirname "$0")/../cli_harness.sh"
case=$CMRS_SOURCE_DIR/cases/data/vessel_3k.h5
skip_without_gpu "$cmrs" "$case"
expect 0 "$cmrs" solve "$case" --device gpu -q -o "$tmp/ok.h5"
for prec in double single; do
  CMRS_GPU_MEM_AVAILABLE_BYTES=500 expect 4 "$cmrs" solve "$case" --device gpu \
    --precision $prec -o "$tmp/x_$prec.h5"
  one_line_err "small GPU, $prec"
  has err "GPU memory" "small GPU, $prec: names the GPU memory"
  has err "500 bytes free" "small GPU, $prec: says what is free"
  [ ! -e "$tmp/x_$prec.h5" ] && ok || bad "small GPU, $prec: output left"
done
# The library path (compare sets up through the same back end).
CMRS_GPU_MEM_AVAILABLE_BYTES=500 expect 4 "$cmrs" compare "$case" --device gpu -q
one_line_err "small GPU, compare"
finish
