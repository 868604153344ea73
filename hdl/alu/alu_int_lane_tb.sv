// Replays the ALU vectors' lane table (`netoffload vectors export`, table `lanes`: one row per
// combine step of an integer element) through alu_int_lane: +lanes=FILE. Row i is presented in
// cycle i; its result must appear, tagged i, in cycle i + LATENCY with r and r_index equal to the
// row's and out_bad low. Prints pass/fail counts; $fatal (non-zero exit) on any mismatch, a missing
// or duplicated result, or zero vectors.
`timescale 1ns/1ps
module alu_int_lane_tb;
  import vectors_pkg::*;
  localparam int MAXROWS = 1 << 18;
  localparam int LATENCY = 1;

  logic [ALU_LANES_W-1:0] lanes [MAXROWS];
  bit seen [MAXROWS];

  logic clk = 1'b0, rst = 1'b1;
  logic in_valid; logic [31:0] in_tag; logic [3:0] in_type, in_op, in_index_type;
  logic [63:0] in_a, in_a_index, in_b, in_b_index;
  logic out_valid; logic [31:0] out_tag; logic [63:0] out_r, out_r_index; logic out_bad;

  alu_int_lane #(.LATENCY(LATENCY)) dut (.*);

  `define F(ROW, NAME) ROW[ALU_LANES_``NAME``_LSB +: ALU_LANES_``NAME``_W]

  int n, pass, fail, cyc;
  string fl;

  task automatic mismatch(input string what);
    fail++;
    if (fail <= 10) $display("MISMATCH cycle %0d: %s", cyc, what);
  endtask

  initial begin
    if (!$value$plusargs("lanes=%s", fl)) $fatal(2, "usage: +lanes=FILE");
    for (int i = 0; i < MAXROWS; i++) lanes[i] = '1;
    $readmemh(fl, lanes);
    n = 0; while (n < MAXROWS && lanes[n] !== {ALU_LANES_W{1'b1}}) n++;
    if (n == 0) $fatal(1, "FAIL: zero vectors in %s", fl);
    if (n == MAXROWS) $fatal(1, "FAIL: %s has %0d rows or more, beyond the testbench's %0d", fl, MAXROWS, MAXROWS - 1);
    pass = 0; fail = 0;
    in_valid = 0; in_tag = 0; in_type = 0; in_op = 0; in_index_type = 0; in_a = 0; in_a_index = 0; in_b = 0; in_b_index = 0;
    #1 clk = 1; #1 clk = 0; rst = 0;
    for (cyc = 0; cyc < n + LATENCY; cyc++) begin
      in_valid = cyc < n;
      if (in_valid) begin
        logic [ALU_LANES_W-1:0] r; r = lanes[cyc];
        in_tag = cyc; in_type = `F(r, TYPE); in_op = `F(r, OP); in_index_type = `F(r, INDEX_TYPE);
        in_a = `F(r, A); in_a_index = `F(r, A_INDEX); in_b = `F(r, B); in_b_index = `F(r, B_INDEX);
      end
      #1;
      if (out_valid) begin
        logic [ALU_LANES_W-1:0] r; r = lanes[out_tag];
        if (seen[out_tag]) mismatch($sformatf("row %0d: result twice", out_tag));
        seen[out_tag] = 1'b1;
        if (cyc != int'(out_tag) + LATENCY) mismatch($sformatf("row %0d: result in cycle %0d, expected %0d", out_tag, cyc, out_tag + LATENCY));
        else if (out_bad || out_r !== `F(r, R) || out_r_index !== `F(r, R_INDEX))
          mismatch($sformatf("row %0d (record %0d element %0d step %0d, type %0d op %0d): expected r %h index %h, got r %h index %h%s",
                             out_tag, `F(r, RECORD), `F(r, ELEMENT), `F(r, STEP), `F(r, TYPE), `F(r, OP), `F(r, R), `F(r, R_INDEX),
                             out_r, out_r_index, out_bad ? " (bad type/op)" : ""));
        else pass++;
      end
      clk = 1; #1 clk = 0;
    end
    for (int i = 0; i < n; i++) if (!seen[i]) mismatch($sformatf("row %0d: no result", i));
    $display("alu_int_lane: %0d lane rows: %0d passed, %0d failed", n, pass, fail);
    if (fail != 0) $fatal(1, "FAIL");
    $display("PASS");
    $finish;
  end
endmodule
