/* Ping-pong: every payload packet is copied into the message's HPU memory and sent back to its
   source as a put from HPU memory (the pong). */
#include "spin.h"

int payload_handler(const spin_args_t *a) {
  if (a->offset + a->pkt_len > a->hpu_mem_len) return 1;
  uint8_t *dst = a->hpu_mem + a->offset;
  const uint32_t *s = (const uint32_t *)a->pkt;
  uint32_t *d = (uint32_t *)dst;
  uint32_t words = a->pkt_len >> 2;
  for (uint32_t i = 0; i < words; i++) d[i] = s[i];
  for (uint32_t i = words << 2; i < a->pkt_len; i++) dst[i] = a->pkt[i];
  return spin_put(a->source, dst, a->pkt_len) < 0 ? 2 : 0;
}
