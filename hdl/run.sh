#!/usr/bin/env bash
# Runs the HDL testbenches on vectors exported by the project:
#   netoffload vectors gen + netoffload vectors export  ->  <out>/<block>.<table>.mem
# then every testbench under Icarus Verilog (iverilog/vvp) and Verilator (--binary), and then
# again on a deliberately corrupted copy of the vectors and on empty vector files, which must FAIL.
# Usage: hdl/run.sh [--out DIR] [--count N] [--seed S] [--sim iverilog|verilator|both]
#        hdl/run.sh --package   (regenerate hdl/generated/vectors_pkg.sv from the exporter's layouts)
# Exit 0: every testbench passed on the good vectors and failed on the corrupted ones.
set -euo pipefail
cd "$(dirname "$0")/.."
out=out/hdl; count=2000; seed=1; sims=both
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2;;
    --count) count="$2"; shift 2;;
    --seed) seed="$2"; shift 2;;
    --sim) sims="$2"; shift 2;;
    --package) npx tsx -e "import('./vectors/svpackage.ts').then((m) => m.writeSvPackage('hdl/generated/vectors_pkg.sv'))"; echo "wrote hdl/generated/vectors_pkg.sv"; exit 0;;
    -h|--help) sed -n 2,7p "$0"; exit 0;;
    *) echo "hdl/run.sh: unknown argument '$1' (see --help)" >&2; exit 2;;
  esac
done
case "$sims" in iverilog) sims="iverilog";; verilator) sims="verilator";; both) sims="iverilog verilator";; *) echo "hdl/run.sh: --sim must be iverilog, verilator or both" >&2; exit 2;; esac
mkdir -p "$out"
cli() { npx tsx cli/main.ts "$@"; }
pkg=hdl/generated/vectors_pkg.sv

# bench name | vector block | top module | sources | plusargs (TABLE=table name, replaced by files)
benches=(
  "memchecker|memcheck|memchecker_tb|hdl/memcheck/memchecker.sv hdl/memcheck/memchecker_tb.sv|checks writes"
)

build() { # sim name top srcs -> prints the run command
  local sim=$1 name=$2 top=$3 srcs=$4 dir="$out/build-$1-$2"
  mkdir -p "$dir"
  if [ "$sim" = iverilog ]; then
    iverilog -g2012 -o "$dir/$name.vvp" $pkg $srcs 2> "$dir/build.log" || { cat "$dir/build.log"; exit 1; }
    echo "vvp -n $dir/$name.vvp"
  else
    verilator --binary --timing -Wno-fatal -Wno-lint -Wno-style --top-module "$top" -Mdir "$dir" -o "$name" $pkg $srcs > "$dir/build.log" 2>&1 || { tail -30 "$dir/build.log"; exit 1; }
    echo "$dir/$name"
  fi
}

status=0
for b in "${benches[@]}"; do
  IFS='|' read -r name block top srcs tables <<< "$b"
  cli vectors gen --block "$block" --count "$count" --seed "$seed" --out "$out/$block.jsonl" > /dev/null
  cli vectors export "$out/$block.jsonl" > /dev/null
  args=""; bad=""
  mkdir -p "$out/corrupt"
  for t in $tables; do
    args="$args +$t=$out/$block.$t.mem"; bad="$bad +$t=$out/corrupt/$block.$t.mem"
    # corruption: flip the lowest bit of the last data row (the lowest bits of a row are an expected output field)
    awk 'NR==FNR { if ($0 !~ /^\/\//) last = FNR; next } FNR == last { h = index("0123456789abcdef", substr($0, length($0))); $0 = substr($0, 1, length($0) - 1) substr("1032547698badcfe", h, 1) } { print }' \
      "$out/$block.$t.mem" "$out/$block.$t.mem" > "$out/corrupt/$block.$t.mem"
  done
  for sim in $sims; do
    t0=$(date +%s)
    run=$(build "$sim" "$name" "$top" "$srcs")
    if $run $args > "$out/$name.$sim.log" 2>&1; then echo "PASS $name ($sim): $(grep -m1 passed "$out/$name.$sim.log")"
    else echo "FAIL $name ($sim) on the exported vectors:"; tail -15 "$out/$name.$sim.log"; status=1; fi
    if bash -c "$run $bad" > "$out/$name.$sim.corrupt.log" 2>&1; then echo "FAIL $name ($sim): the corrupted vectors in $out/corrupt passed"; status=1
    else echo "PASS $name ($sim): corrupted vectors rejected ($(grep -m1 -E 'MISMATCH|FAIL' "$out/$name.$sim.corrupt.log"))"; fi
    empty=""; for t in $tables; do : > "$out/corrupt/empty.$t.mem"; empty="$empty +$t=$out/corrupt/empty.$t.mem"; done
    if bash -c "$run $empty" > "$out/$name.$sim.empty.log" 2>&1; then echo "FAIL $name ($sim): zero vectors passed"; status=1
    else echo "PASS $name ($sim): zero vectors rejected ($(grep -m1 FAIL "$out/$name.$sim.empty.log"))"; fi
    echo "$name under $sim took $(( $(date +%s) - t0 )) s (build + 3 runs)"
  done
done
exit $status
