#!/usr/bin/env bash
# RTL mutation analysis in module groups (make mutate-rtl-groups):
#   sim/mutate/run_rtl_groups.sh OUT JOBS GROUPS [NAME...]
# GROUPS (sim/mutate/groups_rtl.txt): "NAME COUNT MODULES" per line.  For
# each group (or only the NAMEs given): its mutant build OUT/rtl-NAME
# (make mutate-rtl-bins with MUT_BUILD, MUT_COUNT, MUT_MODULES; seed
# MUT_SEED, default 1), then the full selective judge (sim/mutate/run_rtl.sh;
# MUT_MAX_MS passes through for a breadth-first pass).  Ends with each
# group's counts and their sum (OUT/rtl-groups.txt).
set -u
out=$1 jobs=$2 groups=$3; shift 3
only=" $* "
sum=$out/rtl-groups.txt
mkdir -p "$out"
grep -v '^#' "$groups" | while read -r name count mods; do
  [ -n "$name" ] || continue
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || continue
  d=$out/rtl-$name
  make --no-print-directory -j "$jobs" MUT_BUILD="$d" MUT_COUNT="$count" MUT_MODULES="$mods" \
    MUT_SEED="${MUT_SEED:-1}" mutate-rtl-bins > "$out/rtl-$name.build.log" 2>&1 ||
    { echo "mutate-rtl-groups: build of $name failed ($out/rtl-$name.build.log)"; exit 1; }
  sim/mutate/run_rtl.sh "$d" full "$jobs" > "$out/rtl-$name.judge.log" 2>&1
  echo "$name: $(sed -n 2,5p "$d/report.txt" | tr -s " " | cut -d"(" -f1 | tr "\n" ";")"
done
# the sum over every group of GROUPS that has a report (not other builds
# under OUT, such as the make test sample's rtl-sample)
grep -v '^#' "$groups" | while read -r name _; do
  r=$out/rtl-$name/report.txt
  [ -n "$name" ] && [ -f "$r" ] && sed -n '2,5p' "$r"
done |
  awk '{n=($1=="not")?$3:$2; k=($1=="not")?"not_covered":$1; t[k]+=n}
       END {c=t["killed"]+t["survived"]; printf "all groups: killed %d, survived %d, not covered %d, pending %d; score %d of %d covered = %.1f %%\n",
            t["killed"], t["survived"], t["not_covered"], t["pending"], t["killed"], c, c ? 100*t["killed"]/c : 0}' | tee "$sum"
# the second score (docs/sim.md 11.3.1): survivors proven equivalent by
# tools/mutate_equiv.py (make mutate-equiv) leave the count
grep -v '^#' "$groups" | while read -r name _; do
  r=$out/rtl-$name/report.txt
  [ -n "$name" ] && [ -f "$r" ] && sed -n '2,3p;s/^  proved equivalent *\([0-9]*\).*/proved \1/p' "$r"
done | awk '{t[$1]+=$2} END {c=t["killed"]+t["survived"]-t["proved"]; if (t["proved"] != "")
  printf "all groups without proven-equivalent mutants: %d proved; score %d of %d = %.1f %%\n", t["proved"], t["killed"], c, c ? 100*t["killed"]/c : 0}' | tee -a "$sum"
