/* Histogram: 16 bins over the message's bytes (bin = byte >> 4). Each payload handler counts its
   packet into its own 64-byte slot of the message's HPU memory (slot = packet index, so payload
   handlers running at once never share a word); the completion handler sums the slots and writes
   the 16 counts (little-endian 32-bit) to the start of the host window. */
#include "spin.h"

int payload_handler(const spin_args_t *a) {
  uint32_t bins[16];
  if ((a->pkt_index + 1) * 64 > a->hpu_mem_len) return 1;
  for (int i = 0; i < 16; i++) bins[i] = 0;
  for (uint32_t i = 0; i < a->pkt_len; i++) bins[a->pkt[i] >> 4]++;
  uint32_t *slot = (uint32_t *)(a->hpu_mem + a->pkt_index * 64);
  for (int i = 0; i < 16; i++) slot[i] = bins[i];
  return 0;
}

int completion_handler(const spin_args_t *a) {
  uint32_t total[16];
  for (int i = 0; i < 16; i++) total[i] = 0;
  uint32_t n = a->msg_packets;
  if (n * 64 > a->hpu_mem_len) n = a->hpu_mem_len / 64;
  for (uint32_t p = 0; p < n; p++) {
    const uint32_t *slot = (const uint32_t *)(a->hpu_mem + p * 64);
    for (int i = 0; i < 16; i++) total[i] += slot[i];
  }
  return spin_dma_to_host(a->host_base, total, 64) < 0 ? -1 : 0;
}
