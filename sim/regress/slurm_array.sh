#!/usr/bin/env bash
# One job of a Slurm array: a shard of the cosim plan, of the RTL mutants or
# of the model mutants, one result file per job (docs/sim.md "Jobs").
#   sbatch --array=0-15 sim/regress/slurm_array.sh cosim  sim/regress/regress.plan
#   sbatch --array=0-15 sim/regress/slurm_array.sh rtl-mutants   (after `make build/mutate/rtl/cosim ...` and the baseline: `sim/mutate/run_rtl.sh build/mutate/rtl full $(nproc) base`)
#   sbatch --array=0-15 sim/regress/slurm_array.sh model-mutants
# Run from the top of a built tree on a shared file system; merge with
# `cat build/jobs/*.txt` (cosim), tools/mutate_rtl.py report / tools/mutate_c.py report.
#SBATCH --job-name=hcasim
#SBATCH --cpus-per-task=1
#SBATCH --output=build/jobs/slurm-%A_%a.log
set -u
what=$1 arg=${2:-}
i=${SLURM_ARRAY_TASK_ID:?run under sbatch --array}
n=${SLURM_ARRAY_TASK_COUNT:?run under sbatch --array}
mkdir -p build/jobs
case $what in
  cosim) exec build/sim/cosim --plan "${arg:-sim/regress/regress.plan}" --shard "$i/$n" \
         --out build/sim/regress --result "build/jobs/cosim-$i.txt" ;;
  rtl-mutants) exec sim/mutate/run_rtl.sh build/mutate/rtl full 1 "$i/$n" ;;
  model-mutants) exec sim/mutate/run_model.sh build/mutate/model "${arg:-200}" 1 full 1 "$i/$n" ;;
  *) echo "slurm_array.sh: cosim | rtl-mutants | model-mutants" >&2; exit 2 ;;
esac
