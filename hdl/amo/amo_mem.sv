// The node's memory behind the AMO unit: WORDS 64-bit words, all zero at start, one read
// outstanding. A read requested in cycle t (rd_en) returns in cycle t + READ_CYCLES (rd_valid,
// rd_data: the word as of cycle t); a write (wr_en) takes effect at the end of its cycle.
// Synthesizable: the array starts all zero from its initial value (block-RAM initialisation);
// the reset clears only the read state, not the contents.
module amo_mem #(
  parameter int WORDS       = 512,
  parameter int READ_CYCLES = 20   // >= 1
) (
  input  logic        clk,
  input  logic        rst,
  input  logic        rd_en,
  input  logic [44:0] rd_addr,
  output logic        rd_valid,
  output logic [63:0] rd_data,
  input  logic        wr_en,
  input  logic [44:0] wr_addr,
  input  logic [63:0] wr_data
);
  logic [63:0] mem [WORDS];
  logic [63:0] held;
  int          left;   // cycles until the outstanding read returns, 0: none
  initial for (int i = 0; i < WORDS; i++) mem[i] = '0;
  assign rd_valid = left == 1;
  assign rd_data  = held;
  always_ff @(posedge clk) begin
    if (rst) begin
      left <= 0;
    end else begin
      if (rd_en) begin held <= mem[rd_addr[$clog2(WORDS)-1:0]]; left <= READ_CYCLES; end
      else if (left != 0) left <= left - 1;
      if (wr_en) mem[wr_addr[$clog2(WORDS)-1:0]] <= wr_data;
    end
  end
endmodule
