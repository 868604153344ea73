/* Work: a payload-only handler that executes exactly the count in its packet's first word (0 if
   the packet is shorter than 4 bytes; at most WORK_MAX) of straight-line ALU instructions, then
   returns 0. The instructions are an unrolled run of `addi` entered by one computed jump, so
   there is no branch among them: CPI 1 on the pipeline, and a handler time settable to the cycle
   (the busy handler's loop moves in steps of 4 cycles). The load generator of the handler
   budgets and latencies in `netoffload spin table`. */
#include "spin.h"

#define WORK_MAX 3000

int payload_handler(const spin_args_t *a) {
  uint32_t n = a->pkt_len >= 4 ? *(const uint32_t *)a->pkt : 0;
  if (n > WORK_MAX) n = WORK_MAX;
  __asm__ volatile(
      "la t0, 1f\n\t"
      "slli t1, %0, 2\n\t"
      "sub t0, t0, t1\n\t"
      "jr t0\n\t"
      ".rept 3000\n\t"
      "addi t2, t2, 1\n\t"
      ".endr\n"
      "1:"
      :
      : "r"(n)
      : "t0", "t1", "t2");
  return 0;
}
