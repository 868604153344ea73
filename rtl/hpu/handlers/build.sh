#!/usr/bin/env bash
# Builds the sPIN handler ELFs (rtl/hpu/handlers/elf/*.elf) with Debian's gcc-riscv64-unknown-elf.
# Reproducible: relative paths only, no debug info, no build id, .comment dropped, so two builds
# give byte-identical files. `build.sh --check` builds into a temporary directory and fails if
# any ELF differs from the committed one (the CI step).
set -euo pipefail
cd "$(dirname "$0")"
CC=${CC:-riscv64-unknown-elf-gcc}
out=elf
obj=$(mktemp -d)
if [ "${1:-}" = "--check" ]; then out=$(mktemp -d); trap 'rm -rf "$out" "$obj"' EXIT; else trap 'rm -rf "$obj"' EXIT; fi
flags=(-march=rv32im -mabi=ilp32 -O2 -nostdlib -ffreestanding -fno-pic -mcmodel=medlow -ffile-prefix-map="$PWD"=. -Iinclude)
"$CC" "${flags[@]}" -c -o "$obj/crt0.o" crt0.S
# handler name and its 16 KiB slot in the L2 handler-code region (see docs/hpu.md, memory map)
handlers="pingpong:0x10000 accumulate:0x14000 unpack:0x18000 histogram:0x1c000 probe:0x20000 busy:0x24000 work:0x28000"
for h in $handlers; do
  name=${h%%:*}; base=${h##*:}
  "$CC" "${flags[@]}" -c -o "$obj/$name.o" "$name.c"
  "$CC" "${flags[@]}" -Wl,--build-id=none -Wl,--strip-debug -Wl,-T,link.ld -Wl,--defsym=SPIN_BASE="$base" \
    -o "$out/$name.elf" "$obj/crt0.o" "$obj/$name.o" -lgcc
done
if [ "$out" != elf ]; then
  fail=0
  for h in $handlers; do
    name=${h%%:*}
    if ! cmp -s "$out/$name.elf" "elf/$name.elf"; then echo "rtl/hpu/handlers/elf/$name.elf differs from a fresh build"; fail=1; fi
  done
  [ $fail = 0 ] && echo "handler ELFs match a fresh build"
  exit $fail
fi
