/* Busy: a payload-only handler that spins for the count in the first word of its packet (0 if the
   packet is shorter than 4 bytes) and returns 0: the runtime's load generator for the Little's-law
   budgets, the latency and the sweeps (netoffload spin table / sweep). */
#include "spin.h"

int payload_handler(const spin_args_t *a) {
  uint32_t n = a->pkt_len >= 4 ? *(const uint32_t *)a->pkt : 0;
  for (uint32_t i = 0; i < n; i++) __asm__ volatile(""); /* addi + bne: 4 cycles per iteration */
  return 0;
}
