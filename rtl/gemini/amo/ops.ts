/**
 * AMO operation codes of the Gemini AMO unit (seed 004; Cray's DMAPP/uGNI names). A name/constant
 * table only: the golden model (models/gemini/) may import it, nothing else.
 *
 * Every operation works on one naturally aligned 64-bit word. `operand` is the first operand
 * (the addend, the mask, FCSWAP's swap value, AX's and-mask), `operand2` the second where there is
 * one (FCSWAP's compare value, AX's xor mask). FCSWAP: if old == operand2 then new = operand.
 */
export const AMO_ADD = 0;
export const AMO_AND = 1;
export const AMO_OR = 2;
export const AMO_XOR = 3;
export const AMO_FADD = 4;
export const AMO_FAND = 5;
export const AMO_FXOR = 6;
export const AMO_FCSWAP = 7;
/** and-xor: new = (old & operand) ^ operand2, non-fetching (DMAPP's aax) */
export const AMO_AX = 8;
/** and-xor, fetching (DMAPP's afax) */
export const AMO_FAX = 9;

/** Names by code; the order is the code. */
export const AMO_NAMES = ['ADD', 'AND', 'OR', 'XOR', 'FADD', 'FAND', 'FXOR', 'FCSWAP', 'AX', 'FAX'] as const;
export type AmoName = (typeof AMO_NAMES)[number];

/** 1 where the operation returns the word's old value. */
export const AMO_FETCHING: readonly number[] = [0, 0, 0, 0, 1, 1, 1, 1, 0, 1];
/** 1 where the operation uses operand2. */
export const AMO_TWO_OPERANDS: readonly number[] = [0, 0, 0, 0, 0, 0, 0, 1, 1, 1];

/** Response status codes. */
export const AMO_OK = 0;
/** address not a multiple of 8 */
export const AMO_ERR_ALIGN = 1;
/** size other than 8 bytes */
export const AMO_ERR_SIZE = 2;
/** operation code not in AMO_NAMES */
export const AMO_ERR_OP = 3;
/** word outside the node's memory */
export const AMO_ERR_RANGE = 4;
export const AMO_STATUS_NAMES = ['ok', 'misaligned', 'bad_size', 'bad_op', 'out_of_range'] as const;
