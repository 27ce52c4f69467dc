# Sourced by the mpirun tests after cli_harness.sh, with $cmrs set: skips
# (77) without mpirun or where cmrs was built without MPI, lets Open MPI
# run as root and with more ranks than cores (CI), and defines
#   mpi NP ARGS...   timeout ${MPI_TIMEOUT:-120} mpirun -np NP $cmrs ARGS
command -v mpirun >/dev/null || { echo "no mpirun: skipped"; exit 77; }
ldd "$cmrs" | grep -q libmpi || { echo "cmrs built without MPI: skipped"; exit 77; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
mpi() { local np=$1; shift; timeout "${MPI_TIMEOUT:-120}" mpirun -np "$np" "$cmrs" "$@"; }
