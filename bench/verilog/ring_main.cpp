// Driver for the Verilator build of bench/verilog/ring.sv (built and run by bench/suites/kernel.ts
// through bench/verilog/build.ts).
//
//   Vring --cycles N
//       reset, run N cycles, print the source's state (the bench compares it with the kernel ring)
//   Vring --warmup W --chunk C --time-ms T
//       reset, run W cycles, then chunks of C cycles until T ms have passed (at least 5 chunks);
//       the rate is stage-cycles per second of the median chunk (as bench/harness.ts measures)
//
// Prints one JSON line: stages, depth, capacity, cycles (total run), measuredCycles,
// receivedBefore (at the end of the warm-up), received, errors, firstError, perSecond, chunks.
// Usage errors: message on stderr, exit 2.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "Vring.h"
#include "verilated.h"

static void usage(const char* why) {
  std::fprintf(stderr, "ring driver: %s\nusage: Vring --cycles N | Vring --warmup W --chunk C --time-ms T\n", why);
  std::exit(2);
}

static uint64_t number(const char* flag, const char* text) {
  char* end = nullptr;
  if (text == nullptr || *text == '\0') usage((std::string(flag) + " needs a value").c_str());
  unsigned long long v = std::strtoull(text, &end, 10);
  if (*end != '\0' || text[0] == '-') usage((std::string(flag) + ": not a non-negative integer: " + text).c_str());
  return v;
}

static void step(Vring& top, uint64_t cycles) {
  for (uint64_t i = 0; i < cycles; i++) {
    top.clk = 1;
    top.eval();
    top.clk = 0;
    top.eval();
  }
}

int main(int argc, char** argv) {
  uint64_t cycles = 0, warmup = 0, chunk = 0, timeMs = 0;
  bool fixed = false, timed = false;
  for (int i = 1; i < argc; i++) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!std::strcmp(a, "--cycles")) { cycles = number(a, v); fixed = true; i++; }
    else if (!std::strcmp(a, "--warmup")) { warmup = number(a, v); timed = true; i++; }
    else if (!std::strcmp(a, "--chunk")) { chunk = number(a, v); timed = true; i++; }
    else if (!std::strcmp(a, "--time-ms")) { timeMs = number(a, v); timed = true; i++; }
    else usage((std::string("unknown argument ") + a).c_str());
  }
  if (fixed == timed) usage("give either --cycles or --warmup/--chunk/--time-ms");
  if (timed && (chunk == 0 || timeMs == 0)) usage("--chunk and --time-ms must be positive");

  VerilatedContext ctx;
  Vring top(&ctx);
  top.rst = 1;
  top.clk = 0;
  top.eval();
  top.clk = 1;
  top.eval();
  top.clk = 0;
  top.rst = 0;
  top.eval();
  const uint64_t stages = top.stages_o;
  // tokens are 32 bits: a run must end before a cycle number + STAGES wraps
  const uint64_t limit = (1ull << 32) - stages - 1;

  double perSecond = 0;
  uint64_t measured = 0, receivedBefore = 0;
  size_t chunks = 0;
  if (fixed) {
    if (cycles > limit) usage("--cycles too large: 32-bit tokens would wrap");
    step(top, cycles);
  } else {
    step(top, warmup);
    cycles = warmup;
    receivedBefore = top.received;
    std::vector<double> secs;
    const auto t0 = std::chrono::steady_clock::now();
    for (;;) {
      if (cycles + chunk > limit) usage("run too long: 32-bit tokens would wrap");
      const auto a = std::chrono::steady_clock::now();
      step(top, chunk);
      const auto b = std::chrono::steady_clock::now();
      secs.push_back(std::chrono::duration<double>(b - a).count());
      cycles += chunk;
      measured += chunk;
      const double elapsedMs = std::chrono::duration<double, std::milli>(b - t0).count();
      if (secs.size() >= 5 && elapsedMs >= static_cast<double>(timeMs)) break;
    }
    std::sort(secs.begin(), secs.end());
    const size_t h = secs.size() / 2;
    const double med = secs.size() % 2 ? secs[h] : (secs[h - 1] + secs[h]) / 2;
    perSecond = static_cast<double>(stages * chunk) / med;
    chunks = secs.size();
  }
  std::printf(
      "{\"stages\":%llu,\"depth\":%u,\"capacity\":%u,\"cycles\":%llu,\"measuredCycles\":%llu,\"receivedBefore\":%llu,"
      "\"received\":%llu,\"errors\":%u,\"firstError\":{\"cycle\":%u,\"token\":%u,\"value\":%u,\"want\":%u},"
      "\"perSecond\":%.1f,\"chunks\":%zu}\n",
      (unsigned long long)stages, (unsigned)top.depth_o, (unsigned)top.capacity_o, (unsigned long long)cycles,
      (unsigned long long)measured, (unsigned long long)receivedBefore, (unsigned long long)top.received,
      (unsigned)top.errors, (unsigned)top.first_err_cycle, (unsigned)top.first_err_token,
      (unsigned)top.first_err_value, (unsigned)top.first_err_want, perSecond, chunks);
  top.final();
  return 0;
}
