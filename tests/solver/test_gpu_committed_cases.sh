#!/usr/bin/env bash
# The committed cases solved on the GPU with the default format (cmrs):
# the same checks as test_committed_cases.sh. Skipped (77) only when cmrs
# reports that no GPU is present; any other failure fails.
err=$("$1" solve "$CMRS_SOURCE_DIR/cases/data/vessel_3k.h5" --device gpu -q 2>&1 >/dev/null)
case "$err" in *"no CUDA GPU found"*) echo "no GPU: skipped"; exit 77 ;; esac
DEVICE=gpu exec bash "$(dirname "$0")/test_committed_cases.sh" "$1"
