/* Probe: the runtime's test handler. Header and completion handlers spin for the count in words 0
   and 1 of the message's HPU memory; a payload handler reads two words (op, arg) from its packet:
     op 0: spin arg iterations, return 0     op 1: loop forever (the cycle budget stops it)
     op 2: store to address arg (outside the sandbox: a trap)   op 3: return arg (fails the message)
     op 4: DMA 8 bytes to host address arg (outside the host window: an error, returns 4)
   The completion handler returns dropped_bytes * 2 + flow_control (its event value). */
#include "spin.h"

static void spin_for(uint32_t n) {
  for (volatile uint32_t i = 0; i < n; i++) {
  }
}

int header_handler(const spin_args_t *a) {
  spin_for(((const uint32_t *)a->hpu_mem)[0]);
  return 0;
}

int payload_handler(const spin_args_t *a) {
  if (a->pkt_len < 8) return 0;
  const uint32_t *w = (const uint32_t *)a->pkt;
  uint32_t op = w[0], arg = w[1];
  switch (op) {
    case 0:
      spin_for(arg);
      return 0;
    case 1:
      for (;;) __asm__ volatile("");
    case 2:
      *(volatile uint32_t *)arg = op;
      return 0;
    case 3:
      return (int)arg;
    default:
      return spin_dma_to_host(arg, w, 8) < 0 ? 4 : 0;
  }
}

int completion_handler(const spin_args_t *a) {
  spin_for(((const uint32_t *)a->hpu_mem)[1]);
  return (int)(a->dropped_bytes * 2 + a->flow_control);
}
