/*
 * sPIN handler API for netoffload's HPU runtime (rtl/hpu/spin; docs/hpu.md, "Handler API").
 *
 * A handler file defines up to three functions (each optional):
 *   int header_handler(const spin_args_t *a);      once per message, first, alone
 *   int payload_handler(const spin_args_t *a);     once per packet (the first one too), many at once
 *   int completion_handler(const spin_args_t *a);  once, after every payload handler
 * crt0.S calls the one the runtime asks for and passes its return value to exit (ecall 93).
 * A header or payload handler that returns non-zero fails the message (reported in its
 * completion event); the completion handler's return value is the completion event's `value`.
 *
 * Services are ecalls the runtime serves (a7 = service number, a0..a2 arguments, result in a0);
 * a DMA or put blocks the handler until it is done. Negative results are errors:
 *   SPIN_E_RANGE  an address range is outside the handler's sandbox or the host window.
 * Memory a handler may touch (its sandbox): its own code and data, its stack, the args block,
 * the packet, and the message's HPU memory. Anything else traps and fails the message.
 */
#ifndef SPIN_H
#define SPIN_H

typedef unsigned int uint32_t;
typedef int int32_t;
typedef unsigned char uint8_t;
typedef unsigned long size_t;

typedef struct {
  uint32_t kind;          /* 0 header, 1 payload, 2 completion */
  uint32_t msg_id;        /* message id (from the packet header) */
  uint8_t *pkt;           /* this packet's payload in the cluster's L1 (header/payload handlers) */
  uint32_t pkt_len;       /* its length in bytes */
  uint32_t offset;        /* byte offset of this payload in the message */
  uint32_t pkt_index;     /* packet number in the message, from 0 */
  uint8_t *hpu_mem;       /* the message's HPU memory (shared by all its handlers) */
  uint32_t hpu_mem_len;   /* its size in bytes */
  uint32_t host_base;     /* host window of the match entry: first host address */
  uint32_t host_len;      /* its size in bytes */
  uint32_t msg_len;       /* message length in bytes */
  uint32_t msg_packets;   /* packets in the message */
  uint32_t source;        /* source node (for replies) */
  uint32_t dropped_bytes; /* completion handler: payload bytes dropped by flow control */
  uint32_t flow_control;  /* completion handler: 1 if flow control was triggered */
} spin_args_t;

#define SPIN_SYS_DMA_FROM_HOST 0x500
#define SPIN_SYS_DMA_TO_HOST 0x501
#define SPIN_SYS_PUT 0x502
#define SPIN_E_RANGE (-1)

static inline int32_t spin_ecall3(int32_t n, uint32_t x, uint32_t y, uint32_t z) {
  register int32_t a0 __asm__("a0") = (int32_t)x;
  register uint32_t a1 __asm__("a1") = y;
  register uint32_t a2 __asm__("a2") = z;
  register int32_t a7 __asm__("a7") = n;
  __asm__ volatile("ecall" : "+r"(a0) : "r"(a1), "r"(a2), "r"(a7) : "memory");
  return a0;
}

/* Copy len bytes from host address host to HPU-visible memory at local (blocks until done). */
static inline int32_t spin_dma_from_host(void *local, uint32_t host, uint32_t len) {
  return spin_ecall3(SPIN_SYS_DMA_FROM_HOST, (uint32_t)local, host, len);
}

/* Copy len bytes from HPU-visible memory at local to host address host (blocks until done). */
static inline int32_t spin_dma_to_host(uint32_t host, const void *local, uint32_t len) {
  return spin_ecall3(SPIN_SYS_DMA_TO_HOST, host, (uint32_t)local, len);
}

/* Send len bytes from HPU memory at local to node dest as a put (blocks until on the wire). */
static inline int32_t spin_put(uint32_t dest, const void *local, uint32_t len) {
  return spin_ecall3(SPIN_SYS_PUT, dest, (uint32_t)local, len);
}

#endif
