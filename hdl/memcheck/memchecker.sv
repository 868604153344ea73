// Memory checker: item table + check (docs/nic-memory.md "Memory checker"; the TypeScript RTL is
// rtl/nic/memcheck/memchecker.ts). Synthesizable. Without the source arbiter and request FIFOs:
// the testbench presents each check in the cycle it was granted.
//
// Write port: a write presented in cycle t is classified combinationally (wr_result) and, if ok,
// taken into the table at the clock edge ending cycle t (visible to checks from t + 1).
// Check port: a check presented in cycle g reads the table as it was at the start of g (writes
// taken in cycles < g); its verdict is computed combinationally and delayed by LATENCY registers,
// so ck_out_valid/ck_out_* show it in cycle g + LATENCY, tagged with ck_tag.
// Verdict order (first failing wins): bad_request, invalid_item, vp_mismatch (only when the
// request names a VP), key_mismatch, permission, addr_mode, out_of_range, ok.
// The item's refresh flag (an ATC invalidation message) does not affect verdicts and is not modelled.
module memchecker #(
  parameter int ITEMS   = 64,          // table entries
  parameter int VA_BITS = 48,          // address space 2^VA_BITS bytes, pages of 4096 bytes
  parameter longint MAX_LEN = 64'h1_0000_0000, // largest length a check may cover
  parameter int LATENCY = 3,           // cycles from grant to visible verdict (>= 1)
  parameter int TAG_W   = 16
) (
  input  logic        clk,
  input  logic        rst,
  // item write port
  input  logic        wr_en,
  input  logic [20:0] wr_index,
  input  logic        wr_valid,
  input  logic [32:0] wr_key,
  input  logic        wr_read,
  input  logic        wr_write,
  input  logic [39:0] wr_base,     // first page
  input  logic [39:0] wr_top,      // last page (inclusive)
  input  logic [16:0] wr_vp,
  input  logic        wr_physical,
  output logic [1:0]  wr_result,   // 0 ok, 1 bad_index, 2 bad_field
  // check port
  input  logic        ck_en,
  input  logic [TAG_W-1:0] ck_tag,
  input  logic [20:0] ck_item,
  input  logic [31:0] ck_key,
  input  logic [55:0] ck_va,
  input  logic [55:0] ck_len,
  input  logic        ck_write,
  input  logic [16:0] ck_req_vp,   // 17'h1ffff: no VP (not checked)
  input  logic        ck_physical,
  output logic        ck_out_valid,
  output logic [TAG_W-1:0] ck_out_tag,
  output logic [2:0]  ck_out_reason,
  output logic [16:0] ck_out_vp,   // 17'h1ffff on bad_request
  output logic [20:0] ck_out_pages // pages a passing check spans, 0 otherwise
);
  localparam logic [2:0] OK = 3'd0, INVALID_ITEM = 3'd1, KEY_MISMATCH = 3'd2, PERMISSION = 3'd3,
                         OUT_OF_RANGE = 3'd4, BAD_REQUEST = 3'd5, VP_MISMATCH = 3'd6, ADDR_MODE = 3'd7;
  localparam logic [16:0] NO_VP = 17'h1ffff;
  localparam logic [56:0] SPACE = 57'd1 << VA_BITS;
  localparam logic [39:0] PAGES = 40'd1 << (VA_BITS - 12);

  // ---- state: the item table
  logic        t_valid [ITEMS];
  logic [31:0] t_key   [ITEMS];
  logic        t_read  [ITEMS];
  logic        t_write [ITEMS];
  logic [39:0] t_base  [ITEMS];
  logic [39:0] t_top   [ITEMS];
  logic [15:0] t_vp    [ITEMS];
  logic        t_phys  [ITEMS];

  // ---- combinational: write classification
  always_comb begin
    if ({11'd0, wr_index} >= 32'(ITEMS)) wr_result = 2'd1;
    else if (wr_key[32] || wr_base >= PAGES || wr_top < wr_base || wr_top >= PAGES || wr_vp[16]) wr_result = 2'd2;
    else wr_result = 2'd0;
  end

  // ---- combinational: the verdict of the check presented this cycle
  logic [2:0]  v_reason;
  logic [16:0] v_vp;
  logic [20:0] v_pages;
  logic [56:0] start, fin, lo, hi;
  always_comb begin
    start = {1'b0, ck_va};
    fin   = start + {1'b0, ck_len};               // exclusive end
    lo    = 57'(t_base[ck_item[$clog2(ITEMS)-1:0]]) << 12;
    hi    = (57'(t_top[ck_item[$clog2(ITEMS)-1:0]]) + 57'd1) << 12;
    v_pages = 21'd0;
    v_vp    = {1'b0, t_vp[ck_item[$clog2(ITEMS)-1:0]]};
    if ({11'd0, ck_item} >= 32'(ITEMS) || start >= SPACE || ck_len == 56'd0 || {8'd0, ck_len} > MAX_LEN ||
        fin > SPACE || (ck_req_vp != NO_VP && ck_req_vp[16])) begin
      v_reason = BAD_REQUEST;
      v_vp = NO_VP;
    end else if (!t_valid[ck_item[$clog2(ITEMS)-1:0]]) v_reason = INVALID_ITEM;
    else if (ck_req_vp != NO_VP && ck_req_vp != v_vp) v_reason = VP_MISMATCH;
    else if (t_key[ck_item[$clog2(ITEMS)-1:0]] != ck_key) v_reason = KEY_MISMATCH;
    else if (ck_write ? !t_write[ck_item[$clog2(ITEMS)-1:0]] : !t_read[ck_item[$clog2(ITEMS)-1:0]]) v_reason = PERMISSION;
    else if (t_phys[ck_item[$clog2(ITEMS)-1:0]] != ck_physical) v_reason = ADDR_MODE;
    else if (start < lo || fin > hi) v_reason = OUT_OF_RANGE;
    else begin
      v_reason = OK;
      v_pages = 21'(((fin - 57'd1) >> 12) - (start >> 12) + 57'd1);
    end
  end

  // ---- next state: table write, verdict pipeline
  logic              p_valid  [LATENCY];
  logic [TAG_W-1:0]  p_tag    [LATENCY];
  logic [2:0]        p_reason [LATENCY];
  logic [16:0]       p_vp     [LATENCY];
  logic [20:0]       p_pages  [LATENCY];

  always_ff @(posedge clk) begin
    if (rst) begin
      for (int i = 0; i < ITEMS; i++) begin
        t_valid[i] <= 1'b0; t_key[i] <= '0; t_read[i] <= 1'b0; t_write[i] <= 1'b0;
        t_base[i] <= '0; t_top[i] <= '0; t_vp[i] <= '0; t_phys[i] <= 1'b0;
      end
      for (int s = 0; s < LATENCY; s++) p_valid[s] <= 1'b0;
    end else begin
      if (wr_en && wr_result == 2'd0) begin
        t_valid[wr_index[$clog2(ITEMS)-1:0]] <= wr_valid;
        t_key  [wr_index[$clog2(ITEMS)-1:0]] <= wr_key[31:0];
        t_read [wr_index[$clog2(ITEMS)-1:0]] <= wr_read;
        t_write[wr_index[$clog2(ITEMS)-1:0]] <= wr_write;
        t_base [wr_index[$clog2(ITEMS)-1:0]] <= wr_base;
        t_top  [wr_index[$clog2(ITEMS)-1:0]] <= wr_top;
        t_vp   [wr_index[$clog2(ITEMS)-1:0]] <= wr_vp[15:0];
        t_phys [wr_index[$clog2(ITEMS)-1:0]] <= wr_physical;
      end
      p_valid[0] <= ck_en; p_tag[0] <= ck_tag; p_reason[0] <= v_reason; p_vp[0] <= v_vp; p_pages[0] <= v_pages;
      for (int s = 1; s < LATENCY; s++) begin
        p_valid[s] <= p_valid[s-1]; p_tag[s] <= p_tag[s-1]; p_reason[s] <= p_reason[s-1];
        p_vp[s] <= p_vp[s-1]; p_pages[s] <= p_pages[s-1];
      end
    end
  end

  assign ck_out_valid  = p_valid[LATENCY-1];
  assign ck_out_tag    = p_tag[LATENCY-1];
  assign ck_out_reason = p_reason[LATENCY-1];
  assign ck_out_vp     = p_vp[LATENCY-1];
  assign ck_out_pages  = p_pages[LATENCY-1];
endmodule
