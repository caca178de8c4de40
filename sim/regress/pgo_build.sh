#!/bin/bash
# SPDX-License-Identifier: MIT
# make cosim-pgo: cosim with the Verilated models' evaluation code compiled
# profile-guided (gcc -fprofile-generate / -fprofile-use), for make bench's
# simulation rows (docs/sim.md 9.4, 9.7).  Results are the same as the plain
# build's: only the compiler's code layout and branch choices change.
#
# It starts from the plain build (BUILD: cosim built, its Verilated sources
# generated) and recompiles only what the profile can speed up, so that it
# costs two compiles of the evaluation code, not two whole builds:
#   1. OUT gets a copy of BUILD's objects, libraries and Verilated output
#      directories (timestamps kept: make sees them up to date; Verilator
#      is not run again, its generated C++ is the same);
#   2. in each width's directory, the evaluation classes (VM_CLASSES_FAST:
#      the model class and its DepSet files; not the trace, constant-pool
#      and start-up code, which the bench does not run or runs once) are
#      compiled again with -fprofile-generate, and cosim relinked in OUT;
#   3. training: the bench's traffic (sim/regress/bench.sh's runs, fewer
#      messages), rtl alone, at both widths;
#   4. the same classes compiled with -fprofile-use (the profiles, .gcda,
#      lie next to their objects, where gcc looks for them), cosim relinked.
# Usage: sim/regress/pgo_build.sh MAKE BUILD OUT 'RTL_VMAKE' 'RTL_LDLIBS'
#   (MAKE's jobserver, from make -j2, runs the two widths side by side)
set -euo pipefail
mk=$1 build=$2 out=$3 vmake=$4 ldlibs=$5
opt_fast=$(sed -n 's/.*OPT_FAST=\([^ ]*\).*/\1/p' <<< "$vmake")
opt_fast=${opt_fast:--O3}
[ -x "$build/sim/cosim" ] || { echo "pgo_build: $build/sim/cosim not built" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out/rtl" "$out/sim"
cp -a "$build/obj" "$build/lib" "$out/"
cp -a "$build/rtl/sim" "$build/rtl/vflags.stamp" "$out/rtl/"
widths=()
for d in "$build"/rtl/v*/; do
	w=$(basename "$d"); w=${w#v}
	[ -f "$d/Vhca_top${w}_classes.mk" ] || continue
	cp -a "$d" "$out/rtl/v$w"
	widths+=("$w")
done

# the evaluation classes' objects of one width's directory
fast_objs() {	# dir width
	awk '/^VM_CLASSES_FAST \+=/ { on = 1; next } on && NF == 0 { on = 0 }
	     on && $1 != "\\" { print $1 ".o" }' "$1/Vhca_top$2_classes.mk"
}
# compile them again with extra flags, in both widths at once
compile_fast() {	# extra OPT_FAST flags
	local w d pids=()
	for w in "${widths[@]}"; do
		d=$out/rtl/v$w
		# shellcheck disable=SC2046
		(cd "$d" && rm -f $(fast_objs . "$w") "Vhca_top${w}__ALL.a")
		# shellcheck disable=SC2086
		"$mk" --no-print-directory -C "$d" -f "Vhca_top$w.mk" $vmake OPT_FAST="$opt_fast $1" \
			"Vhca_top${w}__ALL.a" >> "$d/pgo.log" 2>&1 &
		pids+=($!)
	done
	for p in "${pids[@]}"; do wait "$p" || { tail -20 "$out"/rtl/v*/pgo.log >&2; exit 1; }; done
}
relink() {	# RTL_LDLIBS
	"$mk" --no-print-directory BUILD="$out" RTL_LDLIBS="$1" "$out/sim/cosim" > "$out/sim/link.log" 2>&1 ||
		{ tail -20 "$out/sim/link.log" >&2; exit 1; }
}

compile_fast "-fprofile-generate -fprofile-update=single"
relink "$ldlibs -lgcov"
find "$out/rtl" -name '*.gcda' -delete
for w in "${widths[@]}"; do
	"$out/sim/cosim" --test random --seed 1 --messages 60 --pairs 8 --outstanding 8 --width "$w" \
		--threads 1 --engine rtl --out "$out/train" > /dev/null
done
compile_fast "-fprofile-use -fprofile-partial-training -Wno-missing-profile"
relink "$ldlibs"
# what make bench-sim prints about the build (sim/regress/bench.sh)
echo "profile-guided (gcc -fprofile-use, trained on 60 messages of the bench's traffic per width)" > "$out/sim/cosim.build"
echo "profile-guided cosim: $out/sim/cosim"
