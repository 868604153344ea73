// SHArP ALU integer lane: one combine step of two integer elements (docs/alu.md "Element
// semantics", "Integers"; golden model models/alu/int-ops.ts). Synthesizable.
//
// Operations (codes as in vectors_pkg ALU_LANES_OP_*): sum, prod (wrap modulo 2^n), min, max
// (signed for iN, unsigned for uN; on equal values `a`), minloc, maxloc (the smaller/larger value
// wins; on equal values the value of `a` and the smaller index, compared per the index type's
// signedness), band, bor, bxor, land, lor, lxor (nonzero is true; result 1 or 0).
// Types (ALU_LANES_TYPE_*): i8 u8 i16 u16 i32 u32 i64 u64. Values and indices are bit patterns of
// their type's width in the low bits of 64-bit ports; bits above the width are ignored on input
// and zero on output. A float type or an operation code outside 0..11 raises `out_bad` (the
// operation context rejects such headers before they reach a lane: TYPE_OP).
//
// Cycle behaviour: the result of the step presented in cycle t (in_valid) is computed
// combinationally and delayed by LATENCY registers: out_valid/out_* show it in cycle t + LATENCY
// with in_tag. One step per cycle, no stall.
module alu_int_lane #(
  parameter int LATENCY = 1,   // cycles from operands to result (>= 1); the model's depthInt
  parameter int TAG_W   = 32
) (
  input  logic             clk,
  input  logic             rst,
  input  logic             in_valid,
  input  logic [TAG_W-1:0] in_tag,
  input  logic [3:0]       in_type,
  input  logic [3:0]       in_op,
  input  logic [3:0]       in_index_type,
  input  logic [63:0]      in_a,
  input  logic [63:0]      in_a_index,
  input  logic [63:0]      in_b,
  input  logic [63:0]      in_b_index,
  output logic             out_valid,
  output logic [TAG_W-1:0] out_tag,
  output logic [63:0]      out_r,
  output logic [63:0]      out_r_index,
  output logic             out_bad
);
  import vectors_pkg::*;
  // operation codes from the generated package (the exporter's table: vectors/blocks/alu.ts)
  localparam logic [3:0] SUM = 4'(ALU_LANES_OP_SUM), PROD = 4'(ALU_LANES_OP_PROD), MIN = 4'(ALU_LANES_OP_MIN),
                         MAX = 4'(ALU_LANES_OP_MAX), MINLOC = 4'(ALU_LANES_OP_MINLOC), MAXLOC = 4'(ALU_LANES_OP_MAXLOC),
                         BAND = 4'(ALU_LANES_OP_BAND), BOR = 4'(ALU_LANES_OP_BOR), BXOR = 4'(ALU_LANES_OP_BXOR),
                         LAND = 4'(ALU_LANES_OP_LAND), LOR = 4'(ALU_LANES_OP_LOR), LXOR = 4'(ALU_LANES_OP_LXOR);
  // the type decoding below relies on i8 u8 i16 u16 i32 u32 i64 u64 being codes 0..7
  // (checked in simulation; synthesis ignores the initial block)
  initial if (ALU_LANES_TYPE_I8 != 0 || ALU_LANES_TYPE_U8 != 1 || ALU_LANES_TYPE_I64 != 6 || ALU_LANES_TYPE_U64 != 7)
    $fatal(1, "alu_int_lane: the type codes of vectors_pkg changed; revise mask_of/value_of");

  // width mask of an integer type code (i8 u8 i16 u16 i32 u32 i64 u64 = 0..7); signed = even code
  function automatic logic [63:0] mask_of(input logic [3:0] t);
    case (t[2:1])
      2'd0: mask_of = 64'h0000_0000_0000_00ff;
      2'd1: mask_of = 64'h0000_0000_0000_ffff;
      2'd2: mask_of = 64'h0000_0000_ffff_ffff;
      default: mask_of = 64'hffff_ffff_ffff_ffff;
    endcase
  endfunction

  // the number a pattern stands for, as a 65-bit signed value (sign- or zero-extended)
  function automatic logic signed [64:0] value_of(input logic [3:0] t, input logic [63:0] v);
    logic [63:0] m;
    logic sgn;
    m = mask_of(t);
    case (t[2:1])
      2'd0: sgn = v[7];
      2'd1: sgn = v[15];
      2'd2: sgn = v[31];
      default: sgn = v[63];
    endcase
    value_of = (!t[0] && sgn) ? {1'b1, v | ~m} : {1'b0, v & m};
  endfunction

  // ---- combinational: the step presented this cycle
  logic [63:0] m, ma, mb, c_r, c_ri;
  logic signed [64:0] va, vb, ia, ib;
  logic c_bad, a_wins;
  always_comb begin
    m  = mask_of(in_type);
    ma = in_a & m;
    mb = in_b & m;
    va = value_of(in_type, in_a);
    vb = value_of(in_type, in_b);
    ia = value_of(in_index_type, in_a_index);
    ib = value_of(in_index_type, in_b_index);
    c_bad = in_type[3] || in_op > 4'(ALU_LANES_OP_LXOR) || ((in_op == MINLOC || in_op == MAXLOC) && in_index_type[3]);
    c_ri = 64'd0;
    a_wins = 1'b0;
    case (in_op)
      SUM:  c_r = (ma + mb) & m;
      PROD: c_r = (ma * mb) & m;
      MIN:  c_r = (vb < va) ? mb : ma;
      MAX:  c_r = (vb > va) ? mb : ma;
      MINLOC, MAXLOC: begin
        if (va == vb) begin
          c_r  = ma;
          c_ri = ((ia <= ib) ? in_a_index : in_b_index) & mask_of(in_index_type);
        end else begin
          a_wins = (in_op == MINLOC) ? (va < vb) : (va > vb);
          c_r  = a_wins ? ma : mb;
          c_ri = (a_wins ? in_a_index : in_b_index) & mask_of(in_index_type);
        end
      end
      BAND: c_r = ma & mb;
      BOR:  c_r = ma | mb;
      BXOR: c_r = ma ^ mb;
      LAND: c_r = {63'd0, (ma != 64'd0) && (mb != 64'd0)};
      LOR:  c_r = {63'd0, (ma != 64'd0) || (mb != 64'd0)};
      LXOR: c_r = {63'd0, (ma != 64'd0) != (mb != 64'd0)};
      default: c_r = 64'd0;
    endcase
    if (c_bad) begin c_r = 64'd0; c_ri = 64'd0; end
  end

  // ---- next state: the result pipeline
  logic             p_valid [LATENCY];
  logic [TAG_W-1:0] p_tag   [LATENCY];
  logic [63:0]      p_r     [LATENCY];
  logic [63:0]      p_ri    [LATENCY];
  logic             p_bad   [LATENCY];
  always_ff @(posedge clk) begin
    if (rst) begin
      for (int s = 0; s < LATENCY; s++) p_valid[s] <= 1'b0;
    end else begin
      p_valid[0] <= in_valid; p_tag[0] <= in_tag; p_r[0] <= c_r; p_ri[0] <= c_ri; p_bad[0] <= c_bad;
      for (int s = 1; s < LATENCY; s++) begin
        p_valid[s] <= p_valid[s-1]; p_tag[s] <= p_tag[s-1]; p_r[s] <= p_r[s-1]; p_ri[s] <= p_ri[s-1]; p_bad[s] <= p_bad[s-1];
      end
    end
  end
  assign out_valid   = p_valid[LATENCY-1];
  assign out_tag     = p_tag[LATENCY-1];
  assign out_r       = p_r[LATENCY-1];
  assign out_r_index = p_ri[LATENCY-1];
  assign out_bad     = p_bad[LATENCY-1];
endmodule
