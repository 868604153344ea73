/** Outputs of a NIC's HyperTransport host-to-NIC direction (MemReq.route). */
export const ROUTE_AMO = 0;
export const ROUTE_BTE = 1;
export const ROUTE_RX = 2;
export const ROUTE_FMA_PIO = 3;
export const ROUTE_BTE_PIO = 4;

/** Bytes of the CPU's stores that describe one transaction to the FMA (a PIO descriptor) and to the BTE (a DMA descriptor). */
export const FMA_DESCRIPTOR_BYTES = 32;
export const BTE_DESCRIPTOR_BYTES = 64;
