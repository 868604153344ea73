// Replays the amo $readmemh export (`netoffload vectors export`, table `ops`) through amo_unit and
// amo_mem: +ops=FILE. The rows are issued one at a time in order, each when the unit is ready; the
// response's status, old value and hit, and the memory writes the operation makes (a dirty
// victim's write-back: wb_valid, wb_addr, wb_value; with write-back, no other write) are compared
// with the row. The data fields only: the row's cycles (issue, accept, resp) are not compared
// (the request ports and opCycles are not modelled here). Parameters: the vectors' default config
// (8 lines, 2 ways, LRU, write-back, 4,096 bytes, readCycles 20). Prints pass/fail counts; $fatal
// (non-zero exit) on any mismatch, a missing response, or zero vectors.
`timescale 1ns/1ps
module amo_unit_tb;
  import vectors_pkg::*;
  localparam int MAXROWS = 1 << 16;
  localparam int TIMEOUT = 1000;

  logic [AMO_OPS_W-1:0] ops [MAXROWS];

  logic clk = 1'b0, rst = 1'b1;
  logic req_valid, req_ready; logic [31:0] req_tag; logic [7:0] req_op; logic [47:0] req_addr; logic [6:0] req_size;
  logic [63:0] req_a, req_b;
  logic resp_valid; logic [31:0] resp_tag; logic [2:0] resp_status; logic [63:0] resp_old; logic resp_hit;
  logic mem_rd_en, mem_rd_valid, mem_wr_en; logic [44:0] mem_rd_addr, mem_wr_addr; logic [63:0] mem_rd_data, mem_wr_data;

  amo_unit #(.LINES(8), .WAYS(2), .REPLACEMENT(0), .WRITE_BACK(1), .MEM_BYTES(4096)) dut (.*);
  amo_mem #(.WORDS(512), .READ_CYCLES(20)) mem (.clk, .rst, .rd_en(mem_rd_en), .rd_addr(mem_rd_addr), .rd_valid(mem_rd_valid),
    .rd_data(mem_rd_data), .wr_en(mem_wr_en), .wr_addr(mem_wr_addr), .wr_data(mem_wr_data));

  `define F(ROW, NAME) ROW[AMO_OPS_``NAME``_LSB +: AMO_OPS_``NAME``_W]

  int n, pass, fail, cyc, writes;
  logic [47:0] w_addr; logic [63:0] w_value;
  string fo;

  task automatic mismatch(input string what);
    fail++;
    if (fail <= 10) $display("MISMATCH cycle %0d: %s", cyc, what);
  endtask

  task automatic tick();
    #1;
    if (mem_wr_en) begin writes++; w_addr = {mem_wr_addr, 3'b000}; w_value = mem_wr_data; end
    clk = 1; #1 clk = 0; #1 cyc++;
  endtask

  initial begin
    if (!$value$plusargs("ops=%s", fo)) $fatal(2, "usage: +ops=FILE");
    for (int i = 0; i < MAXROWS; i++) ops[i] = '1;
    $readmemh(fo, ops);
    n = 0; while (n < MAXROWS && ops[n] !== {AMO_OPS_W{1'b1}}) n++;
    if (n == 0) $fatal(1, "FAIL: zero vectors in %s", fo);
    if (n == MAXROWS) $fatal(1, "FAIL: %s has %0d rows or more, beyond the testbench's %0d", fo, MAXROWS, MAXROWS - 1);
    pass = 0; fail = 0; cyc = 0;
    req_valid = 0; req_tag = 0; req_op = 0; req_addr = 0; req_size = 0; req_a = 0; req_b = 0;
    #1 clk = 1; #1 clk = 0; rst = 0; #1;
    for (int i = 0; i < n; i++) begin
      logic [AMO_OPS_W-1:0] r; int k;
      r = ops[i];
      while (!req_ready) tick();
      req_valid = 1; req_tag = i; req_op = `F(r, OP); req_addr = `F(r, ADDR); req_size = `F(r, SIZE); req_a = `F(r, A); req_b = `F(r, B);
      writes = 0;
      tick();
      req_valid = 0;
      k = 0;
      while (!resp_valid && k < TIMEOUT) begin tick(); k++; end
      if (!resp_valid) mismatch($sformatf("row %0d: no response within %0d cycles", i, TIMEOUT));
      else if (resp_tag != i) mismatch($sformatf("row %0d: response tagged %0d", i, resp_tag));
      else if (resp_status != `F(r, STATUS) || resp_old != `F(r, OLD) || resp_hit != `F(r, HIT))
        mismatch($sformatf("row %0d (op %0d addr %h): expected status %0d old %h hit %0d, got status %0d old %h hit %0d", i,
                           `F(r, OP), `F(r, ADDR), `F(r, STATUS), `F(r, OLD), `F(r, HIT), resp_status, resp_old, resp_hit));
      else if (writes != int'(`F(r, WB_VALID)) || (writes == 1 && (w_addr != `F(r, WB_ADDR) || w_value != `F(r, WB_VALUE))))
        mismatch($sformatf("row %0d: expected %0d write-back(s) %h <- %h, got %0d %h <- %h", i, `F(r, WB_VALID), `F(r, WB_ADDR),
                           `F(r, WB_VALUE), writes, w_addr, w_value));
      else pass++;
      tick();
    end
    $display("amo_unit: %0d op rows: %0d passed, %0d failed", n, pass, fail);
    if (fail != 0) $fatal(1, "FAIL");
    $display("PASS");
    $finish;
  end
endmodule
