/* Ping-pong (seed 002): the pong is pre-set up by the destination in the message's HPU memory
   (the match entry's initial HPU memory); each ping packet triggers a put of the same number of
   bytes, from HPU memory at the packet's offset, back to the ping's source. */
#include "spin.h"

int payload_handler(const spin_args_t *a) {
  if (a->offset + a->pkt_len > a->hpu_mem_len) return 1;
  return spin_put(a->source, a->hpu_mem + a->offset, a->pkt_len) < 0 ? 2 : 0;
}
