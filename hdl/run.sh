#!/usr/bin/env bash
# Runs the HDL testbenches on vectors exported by the project:
#   netoffload vectors gen + netoffload vectors export  ->  <out>/<block>.<table>.mem
# then every testbench under Icarus Verilog (iverilog/vvp) and Verilator (--binary), and then
# again on a deliberately corrupted copy of the vectors and on empty vector files, which must FAIL.
# Usage: hdl/run.sh [--out DIR] [--count N] [--seed S] [--sim iverilog|verilator|both]
#        hdl/run.sh --package   (regenerate hdl/generated/vectors_pkg.sv and docs/vectors.md's code tables
#                                from the exporter's layouts)
# Exit 0: every testbench passed on the good vectors and failed on the corrupted ones.
set -euo pipefail
cd "$(dirname "$0")/.."
out=out/hdl; count=2000; count_set=0; seed=1; sims=both
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2;;
    --count) count="$2"; count_set=1; shift 2;;
    --seed) seed="$2"; shift 2;;
    --sim) sims="$2"; shift 2;;
    --package) npx tsx -e "import('./vectors/svpackage.ts').then((m) => m.writeSvPackage('hdl/generated/vectors_pkg.sv'))"
               npx tsx -e "import('./vectors/readmemh-codes.ts').then((m) => m.writeCodeTables('docs/vectors.md'))"
               echo "wrote hdl/generated/vectors_pkg.sv and the code tables of docs/vectors.md"; exit 0;;
    -h|--help) sed -n 2,8p "$0"; exit 0;;
    *) echo "hdl/run.sh: unknown argument '$1' (see --help)" >&2; exit 2;;
  esac
done
case "$sims" in iverilog) sims="iverilog";; verilator) sims="verilator";; both) sims="iverilog verilator";; *) echo "hdl/run.sh: --sim must be iverilog, verilator or both" >&2; exit 2;; esac
mkdir -p "$out"
cli() { npx tsx cli/main.ts "$@"; }
pkg=hdl/generated/vectors_pkg.sv

# bench name | vector block | top module | sources | tables (TABLE[:FIELD], one +TABLE=FILE plusarg each; FIELD: the
# expected-output field the corrupted copy flips, default the last) | records (empty: --count)
benches=(
  "memchecker|memcheck|memchecker_tb|hdl/memcheck/memchecker.sv hdl/memcheck/memchecker_tb.sv|checks writes|"
  "alu_int_lane|alu|alu_int_lane_tb|hdl/alu/alu_int_lane.sv hdl/alu/alu_int_lane_tb.sv|lanes:r|500"
  "amo_unit|amo|amo_unit_tb|hdl/amo/amo_unit.sv hdl/amo/amo_mem.sv hdl/amo/amo_unit_tb.sv|ops:status|"
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
  IFS='|' read -r name block top srcs tables n <<< "$b"
  # a block's own record count (the ALU's corner records have up to 64 x 64 lane rows each) unless --count was given
  if [ -n "$n" ] && [ "$count_set" = 0 ]; then n=$n; else n=$count; fi
  cli vectors gen --block "$block" --count "$n" --seed "$seed" --out "$out/$block.jsonl" > /dev/null
  cli vectors export "$out/$block.jsonl" > /dev/null
  args=""; bad=""
  mkdir -p "$out/corrupt"
  for spec in $tables; do
    t=${spec%%:*}; field=${spec#*:}; [ "$field" = "$spec" ] && field=""
    args="$args +$t=$out/$block.$t.mem"; bad="$bad +$t=$out/corrupt/$block.$t.mem"
    # corruption: flip the lowest bit of an expected-output field (TABLE:FIELD; default the row's
    # last field) in the last data row
    lsb=0; [ -n "$field" ] && lsb=$(awk -v f="$field" '$1 == f { print $3 }' "$out/$block.$t.layout")
    [ -n "$lsb" ] || { echo "hdl/run.sh: no field '$field' in $out/$block.$t.layout" >&2; exit 2; }
    awk -v bit="$lsb" 'NR==FNR { if ($0 !~ /^\/\//) last = FNR; next }
      FNR == last { p = length($0) - int(bit / 4); h = index("0123456789abcdef", substr($0, p, 1)) - 1; m = 2 ^ (bit % 4)
                    h = (int(h / m) % 2) ? h - m : h + m; $0 = substr($0, 1, p - 1) substr("0123456789abcdef", h + 1, 1) substr($0, p + 1) }
      { print }' "$out/$block.$t.mem" "$out/$block.$t.mem" > "$out/corrupt/$block.$t.mem"
  done
  for sim in $sims; do
    t0=$(date +%s)
    run=$(build "$sim" "$name" "$top" "$srcs")
    if $run $args > "$out/$name.$sim.log" 2>&1; then echo "PASS $name ($sim): $(grep -m1 passed "$out/$name.$sim.log")"
    else echo "FAIL $name ($sim) on the exported vectors:"; tail -15 "$out/$name.$sim.log"; status=1; fi
    if bash -c "$run $bad" > "$out/$name.$sim.corrupt.log" 2>&1; then echo "FAIL $name ($sim): the corrupted vectors in $out/corrupt passed"; status=1
    else echo "PASS $name ($sim): corrupted vectors rejected ($(grep -m1 -E 'MISMATCH|FAIL' "$out/$name.$sim.corrupt.log"))"; fi
    empty=""; for spec in $tables; do t=${spec%%:*}; : > "$out/corrupt/empty.$t.mem"; empty="$empty +$t=$out/corrupt/empty.$t.mem"; done
    if bash -c "$run $empty" > "$out/$name.$sim.empty.log" 2>&1; then echo "FAIL $name ($sim): zero vectors passed"; status=1
    else echo "PASS $name ($sim): zero vectors rejected ($(grep -m1 FAIL "$out/$name.$sim.empty.log"))"; fi
    echo "$name under $sim took $(( $(date +%s) - t0 )) s (build + 3 runs)"
  done
done
exit $status
