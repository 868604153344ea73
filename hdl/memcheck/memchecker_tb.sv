// Replays the memcheck $readmemh export (`netoffload vectors export`) through memchecker:
// +checks=FILE (table checks) +writes=FILE (table writes). Each write is presented in its
// `applied` cycle and its wr_result compared; each check is presented in its `grant` cycle and its
// verdict (reason, vp, pages) must appear exactly in its `resp` cycle. Prints pass/fail counts;
// $fatal (non-zero exit) on any mismatch, a missing verdict, or zero vectors.
`timescale 1ns/1ps
module memchecker_tb;
  import vectors_pkg::*;
  localparam int MAXROWS = 1 << 14;
  localparam int MAXCYC  = 1 << 17;
  localparam int LATENCY = 3;

  logic [MEMCHECK_CHECKS_W-1:0] checks [MAXROWS];
  logic [MEMCHECK_WRITES_W-1:0] writes [MAXROWS];
  int grant_row [MAXCYC];   // row + 1 of the check granted in a cycle, 0: none
  int apply_row [MAXCYC];   // row + 1 of the write taken in a cycle, 0: none
  bit seen [MAXROWS];

  logic clk = 1'b0, rst = 1'b1;
  logic wr_en; logic [20:0] wr_index; logic wr_valid; logic [32:0] wr_key; logic wr_read, wr_write;
  logic [39:0] wr_base, wr_top; logic [16:0] wr_vp; logic wr_physical; logic [1:0] wr_result;
  logic ck_en; logic [15:0] ck_tag; logic [20:0] ck_item; logic [31:0] ck_key; logic [55:0] ck_va, ck_len;
  logic ck_write; logic [16:0] ck_req_vp; logic ck_physical;
  logic ck_out_valid; logic [15:0] ck_out_tag; logic [2:0] ck_out_reason; logic [16:0] ck_out_vp; logic [20:0] ck_out_pages;

  memchecker #(.LATENCY(LATENCY)) dut (.*);

  `define F(ROW, T, NAME) ROW[MEMCHECK_``T``_``NAME``_LSB +: MEMCHECK_``T``_``NAME``_W]

  int n_checks, n_writes, pass, fail, last, cyc;
  string fc, fw;

  task automatic mismatch(input string what);
    fail++;
    if (fail <= 10) $display("MISMATCH cycle %0d: %s", cyc, what);
  endtask

  initial begin
    if (!$value$plusargs("checks=%s", fc) || !$value$plusargs("writes=%s", fw)) $fatal(2, "usage: +checks=FILE +writes=FILE");
    for (int i = 0; i < MAXROWS; i++) begin checks[i] = '1; writes[i] = '1; end
    $readmemh(fc, checks);
    $readmemh(fw, writes);
    n_checks = 0; while (n_checks < MAXROWS && checks[n_checks] !== {MEMCHECK_CHECKS_W{1'b1}}) n_checks++;
    n_writes = 0; while (n_writes < MAXROWS && writes[n_writes] !== {MEMCHECK_WRITES_W{1'b1}}) n_writes++;
    if (n_checks + n_writes == 0) $fatal(1, "FAIL: zero vectors in %s and %s", fc, fw);
    for (int c = 0; c < MAXCYC; c++) begin grant_row[c] = 0; apply_row[c] = 0; end
    last = 0; pass = 0; fail = 0; cyc = 0;
    for (int i = 0; i < n_checks; i++) begin
      int g; g = int'(`F(checks[i], CHECKS, GRANT));
      if (g >= MAXCYC - LATENCY - 2) $fatal(1, "FAIL: check row %0d grant cycle %0d beyond the testbench's %0d cycles", i, g, MAXCYC);
      if (grant_row[g] != 0) $fatal(1, "FAIL: check rows %0d and %0d both granted in cycle %0d", grant_row[g] - 1, i, g);
      grant_row[g] = i + 1; seen[i] = 1'b0;
      if (g > last) last = g;
    end
    for (int i = 0; i < n_writes; i++) begin
      int a; a = int'(`F(writes[i], WRITES, APPLIED));
      if (a >= MAXCYC - LATENCY - 2) $fatal(1, "FAIL: write row %0d applied cycle %0d beyond the testbench's %0d cycles", i, a, MAXCYC);
      if (apply_row[a] != 0) $fatal(1, "FAIL: write rows %0d and %0d both applied in cycle %0d", apply_row[a] - 1, i, a);
      apply_row[a] = i + 1;
      if (a > last) last = a;
    end
    // reset
    wr_en = 0; ck_en = 0; wr_index = 0; wr_valid = 0; wr_key = 0; wr_read = 0; wr_write = 0; wr_base = 0; wr_top = 0;
    wr_vp = 0; wr_physical = 0; ck_tag = 0; ck_item = 0; ck_key = 0; ck_va = 0; ck_len = 0; ck_write = 0; ck_req_vp = 0; ck_physical = 0;
    #1 clk = 1; #1 clk = 0; rst = 0;
    for (cyc = 0; cyc <= last + LATENCY; cyc++) begin
      // drive this cycle's write and check
      wr_en = apply_row[cyc] != 0;
      if (wr_en) begin
        logic [MEMCHECK_WRITES_W-1:0] w; w = writes[apply_row[cyc] - 1];
        wr_index = `F(w, WRITES, INDEX); wr_valid = `F(w, WRITES, VALID); wr_key = `F(w, WRITES, KEY);
        wr_read = `F(w, WRITES, READ); wr_write = `F(w, WRITES, WRITE); wr_base = `F(w, WRITES, BASE);
        wr_top = `F(w, WRITES, TOP); wr_vp = `F(w, WRITES, VP); wr_physical = `F(w, WRITES, PHYSICAL);
      end
      ck_en = grant_row[cyc] != 0;
      if (ck_en) begin
        logic [MEMCHECK_CHECKS_W-1:0] c; c = checks[grant_row[cyc] - 1];
        ck_tag = 16'(grant_row[cyc] - 1);
        ck_item = `F(c, CHECKS, ITEM); ck_key = `F(c, CHECKS, KEY); ck_va = `F(c, CHECKS, VA); ck_len = `F(c, CHECKS, LEN);
        ck_write = `F(c, CHECKS, WRITE); ck_req_vp = `F(c, CHECKS, REQ_VP); ck_physical = `F(c, CHECKS, PHYSICAL);
      end
      #1;
      // compare this cycle's outputs
      if (wr_en) begin
        if (wr_result == 2'(`F(writes[apply_row[cyc] - 1], WRITES, RESULT))) pass++;
        else mismatch($sformatf("write row %0d: result expected %0d, got %0d", apply_row[cyc] - 1,
                                `F(writes[apply_row[cyc] - 1], WRITES, RESULT), wr_result));
      end
      if (ck_out_valid) begin
        logic [MEMCHECK_CHECKS_W-1:0] c; c = checks[ck_out_tag];
        if (seen[ck_out_tag]) mismatch($sformatf("check row %0d: verdict twice", ck_out_tag));
        seen[ck_out_tag] = 1'b1;
        if (cyc != int'(`F(c, CHECKS, RESP)))
          mismatch($sformatf("check row %0d: verdict in cycle %0d, expected %0d", ck_out_tag, cyc, `F(c, CHECKS, RESP)));
        else if (ck_out_reason != `F(c, CHECKS, REASON) || ck_out_vp != `F(c, CHECKS, VP) || ck_out_pages != `F(c, CHECKS, PAGES))
          mismatch($sformatf("check row %0d: expected reason %0d vp %0h pages %0d, got reason %0d vp %0h pages %0d", ck_out_tag,
                             `F(c, CHECKS, REASON), `F(c, CHECKS, VP), `F(c, CHECKS, PAGES), ck_out_reason, ck_out_vp, ck_out_pages));
        else pass++;
      end
      clk = 1; #1 clk = 0;
    end
    for (int i = 0; i < n_checks; i++) if (!seen[i]) mismatch($sformatf("check row %0d: no verdict", i));
    $display("memchecker: %0d check rows, %0d write rows: %0d passed, %0d failed", n_checks, n_writes, pass, fail);
    if (fail != 0) $fatal(1, "FAIL");
    $display("PASS");
    $finish;
  end
endmodule
