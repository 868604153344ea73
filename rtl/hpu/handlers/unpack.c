/* Strided (vector) datatype unpack: the message is a stream of blocks of `blocklen` bytes; block b
   goes to host_base + b * stride. blocklen and stride are the first two words of the message's
   HPU memory (set by the match entry). Each piece of a block in this packet is one DMA write. */
#include "spin.h"

int payload_handler(const spin_args_t *a) {
  const uint32_t *cfg = (const uint32_t *)a->hpu_mem;
  uint32_t blocklen = cfg[0], stride = cfg[1];
  if (blocklen == 0) return 1;
  uint32_t pos = a->offset, end = a->offset + a->pkt_len;
  while (pos < end) {
    uint32_t blk = pos / blocklen, within = pos % blocklen;
    uint32_t n = blocklen - within;
    if (n > end - pos) n = end - pos;
    if (spin_dma_to_host(a->host_base + blk * stride + within, a->pkt + (pos - a->offset), n) < 0) return 2;
    pos += n;
  }
  return 0;
}
