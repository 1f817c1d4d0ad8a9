/** How an answer's error is read off the wire: its code must be one of error-codes.ts's. */
import { z } from 'zod';
import { isWireErrorCode, type WireErrorCode } from './error-codes.js';

/** A code read off another process's answer: one of the wire codes, else the answer is outside the contract. */
export const wireErrorCodeSchema = z.custom<WireErrorCode>(
  (value) => typeof value === 'string' && isWireErrorCode(value),
  {
    message: 'not a Bastion error code',
  },
);

export const wireErrorSchema = z.strictObject({ code: wireErrorCodeSchema, message: z.string() });
