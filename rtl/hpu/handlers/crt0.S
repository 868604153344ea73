# crt0 of every sPIN handler ELF: the runtime starts the HPU here with sp set to the HPU's stack
# and a0 = the spin_args_t pointer; dispatch on args->kind, then exit with the handler's result.
  .section .text.start
  .globl _start
  .weak header_handler
  .weak payload_handler
  .weak completion_handler
_start:
  lw t0, 0(a0)
  beqz t0, 1f
  addi t0, t0, -1
  beqz t0, 2f
  call completion_handler
  j 3f
1:
  call header_handler
  j 3f
2:
  call payload_handler
3:
  li a7, 93
  ecall
