/* Accumulate (seed 002): the packet holds double-complex numbers (re, im as IEEE doubles); the
   matching slice of the host buffer is fetched by DMA, multiplied element by element with the
   packet, and written back by DMA: host[k] = host[k] * pkt[k]. */
#include "spin.h"

#define MAX_BYTES 4096

int payload_handler(const spin_args_t *a) {
  double buf[MAX_BYTES / 8];
  uint32_t len = a->pkt_len;
  if (len > MAX_BYTES || (len & 15) != 0) return 1;
  uint32_t host = a->host_base + a->offset;
  if (spin_dma_from_host(buf, host, len) < 0) return 2;
  const double *p = (const double *)a->pkt;
  for (uint32_t k = 0; k < len / 8; k += 2) {
    double xr = buf[k], xi = buf[k + 1], yr = p[k], yi = p[k + 1];
    buf[k] = xr * yr - xi * yi;
    buf[k + 1] = xr * yi + xi * yr;
  }
  return spin_dma_to_host(host, buf, len) < 0 ? 3 : 0;
}
