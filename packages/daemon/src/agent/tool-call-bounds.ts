/**
 * `resource-exhaustion`: a model's reply is untrusted, so the tool calls of one model step are
 * bounded before the AI SDK parses, runs, stores or sends back any of them. A call whose input
 * (the JSON text the model sent) passes MODEL_MAX_TOOL_INPUT_BYTES, a call that would carry its
 * step's inputs past MODEL_MAX_STEP_TOOL_INPUT_BYTES, and every call after the step's
 * MODEL_MAX_TOOL_CALLS_PER_STEP-th reach the loop with a small marker in place of their input. The
 * marker is all that is stored in the transcript, shown in the tool-call event and sent back on
 * later steps; its tool is never reached (no policy check, no approval, no handler), and its
 * result is a refusal naming the size or count and the bound, so the model can send it smaller.
 *
 * Provider adapters build a streamed call's input from its deltas before they hand over the whole
 * call, so the reply stops being read (its body cancelled) once one call's deltas pass the input
 * bound or the step's pass the step's: the call then ends the step with its marker, calls not yet
 * complete are dropped, and the step's token usage is unknown (counted as zero).
 *
 * What it does not catch: bytes an adapter holds before it hands over a delta or a whole call (one
 * server-sent event of a reply is read whole before it is seen here, up to
 * MODEL_MAX_UNPARSED_REPLY_BYTES: providers/bounded-reply-fetch.ts).
 */
import type { asSchema as AsSchema, jsonSchema as JsonSchema, Tool, ToolSet } from 'ai';
import type { LanguageModelV3, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import type { ToolNeedsApprovalFunction } from '@ai-sdk/provider-utils';
import { z } from 'zod';
import {
  MODEL_MAX_STEP_TOOL_INPUT_BYTES,
  MODEL_MAX_TOOL_CALLS_PER_STEP,
  MODEL_MAX_TOOL_INPUT_BYTES,
} from '@bastion/protocol';
import type { ToolRefusal } from '../tools/tool-context.js';
import { withModelCalls } from './model-calls.js';

/** The input a refused call is stored and sent back with, in place of the model's. */
const refusedCallSchema = z.strictObject({
  bastion_refused_call: z.enum(['TOOL_INPUT_TOO_LARGE', 'TOOL_CALLS_TOO_MANY']),
  /** TOOL_INPUT_TOO_LARGE: the input's bytes (as far as it was read: `cut`), and the bound it passed. */
  input_bytes: z.number().int().nonnegative().optional(),
  cut: z.boolean().optional(),
  /** ...or the bytes its step's earlier calls already took of MODEL_MAX_STEP_TOOL_INPUT_BYTES. */
  step_bytes: z.number().int().nonnegative().optional(),
  /** TOOL_CALLS_TOO_MANY: the call's place in its step. */
  call_number: z.number().int().positive().optional(),
});
export type RefusedCall = z.infer<typeof refusedCallSchema>;

/** The marker `input` stands for, or undefined for a model's own input. */
export function refusedCallOf(input: unknown): RefusedCall | undefined {
  const parsed = refusedCallSchema.safeParse(input);
  return parsed.success ? parsed.data : undefined;
}

/** What the model and the transcript are told about a refused call. */
export function refusalOf(call: RefusedCall): ToolRefusal {
  if (call.bastion_refused_call === 'TOOL_CALLS_TOO_MANY') {
    return {
      ok: false,
      code: 'TOOL_CALLS_TOO_MANY',
      message: `not run: this was call ${call.call_number ?? '?'} of one step, and a step runs at most ${MODEL_MAX_TOOL_CALLS_PER_STEP} tool calls; make the rest in the next step`,
    };
  }
  const input =
    call.input_bytes === undefined
      ? ''
      : `its input was ${call.cut === true ? 'over ' : ''}${call.input_bytes} bytes, `;
  const bound =
    call.step_bytes === undefined
      ? `over the ${MODEL_MAX_TOOL_INPUT_BYTES} bytes a tool call's input may have`
      : `and the step's earlier calls had ${call.step_bytes} of the ${MODEL_MAX_STEP_TOOL_INPUT_BYTES} bytes one step's tool inputs may have`;
  return {
    ok: false,
    code: 'TOOL_INPUT_TOO_LARGE',
    message: `not run: ${input}${bound}; its input was not kept. Send it smaller (write a large file in parts, or change it with edit_file)`,
  };
}

const marker = (call: RefusedCall): string => JSON.stringify(call);

const UNKNOWN_USAGE = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

type ToolCallPart = Extract<LanguageModelV3StreamPart, { type: 'tool-call' }>;

/** One step's reply with its tool calls bounded (see the module comment). */
function boundedStep(reply: ReadableStream<LanguageModelV3StreamPart>): ReadableStream<LanguageModelV3StreamPart> {
  const reader = reply.getReader();
  /** Bytes streamed so far for each call still streaming, and for the whole step. */
  const streaming = new Map<string, { toolName: string; bytes: number }>();
  let streamedBytes = 0;
  /** Inputs of the calls passed on whole, and how many calls the step made. */
  let keptBytes = 0;
  let calls = 0;

  const bound = (part: ToolCallPart): ToolCallPart => {
    calls += 1;
    const bytes = Buffer.byteLength(part.input);
    let refused: RefusedCall | undefined;
    if (calls > MODEL_MAX_TOOL_CALLS_PER_STEP)
      refused = { bastion_refused_call: 'TOOL_CALLS_TOO_MANY', call_number: calls };
    else if (bytes > MODEL_MAX_TOOL_INPUT_BYTES)
      refused = { bastion_refused_call: 'TOOL_INPUT_TOO_LARGE', input_bytes: bytes };
    else if (keptBytes + bytes > MODEL_MAX_STEP_TOOL_INPUT_BYTES)
      refused = { bastion_refused_call: 'TOOL_INPUT_TOO_LARGE', input_bytes: bytes, step_bytes: keptBytes };
    if (refused === undefined) {
      keptBytes += bytes;
      return part;
    }
    return { ...part, input: marker(refused) };
  };

  return new ReadableStream<LanguageModelV3StreamPart>({
    async pull(controller) {
      const next = await reader.read();
      if (next.done) {
        controller.close();
        return;
      }
      const part = next.value;
      if (part.type === 'tool-call') {
        streaming.delete(part.toolCallId);
        controller.enqueue(bound(part));
        return;
      }
      if (part.type === 'tool-input-start') streaming.set(part.id, { toolName: part.toolName, bytes: 0 });
      const call = part.type === 'tool-input-delta' ? streaming.get(part.id) : undefined;
      if (part.type === 'tool-input-delta' && call !== undefined) {
        const bytes = Buffer.byteLength(part.delta);
        call.bytes += bytes;
        streamedBytes += bytes;
        if (call.bytes > MODEL_MAX_TOOL_INPUT_BYTES || streamedBytes > MODEL_MAX_STEP_TOOL_INPUT_BYTES) {
          // Stop reading: the adapter would hold the rest of this input before handing it over.
          await reader.cancel().catch(() => undefined);
          calls += 1;
          const refused: RefusedCall = {
            bastion_refused_call: 'TOOL_INPUT_TOO_LARGE',
            input_bytes: call.bytes,
            cut: true,
            ...(call.bytes > MODEL_MAX_TOOL_INPUT_BYTES ? {} : { step_bytes: streamedBytes - call.bytes }),
          };
          controller.enqueue({ type: 'tool-input-end', id: part.id });
          controller.enqueue({
            type: 'tool-call',
            toolCallId: part.id,
            toolName: call.toolName,
            input: marker(refused),
          });
          controller.enqueue({
            type: 'finish',
            usage: UNKNOWN_USAGE,
            finishReason: { unified: 'tool-calls', raw: undefined },
          });
          controller.close();
          return;
        }
      }
      controller.enqueue(part);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

/** The same model with each step's tool calls bounded. */
export function boundedToolCallModel(model: LanguageModelV3): LanguageModelV3 {
  return withModelCalls(model, {
    doStream: async (options) => {
      const result = await model.doStream(options);
      return { ...result, stream: boundedStep(result.stream) };
    },
    doGenerate: (options) => model.doGenerate(options),
  });
}

/** What of the AI SDK refusingTools needs (loaded by the first run, as the loop's). */
interface SchemaKit {
  asSchema: typeof AsSchema;
  jsonSchema: typeof JsonSchema;
}

/**
 * Each tool taking a refused call's marker as valid input (its schema as the model is shown it is
 * unchanged), asking no approval for it, and answering it with the refusal before its own
 * `execute` (the policy hook and the handler) is reached. A model that sends a marker itself only
 * refuses its own call.
 */
export function refusingTools(tools: ToolSet, { asSchema, jsonSchema }: SchemaKit): ToolSet {
  return Object.fromEntries(
    Object.entries(tools).map(([name, original]): [string, Tool] => {
      const schema = asSchema(original.inputSchema);
      const execute = original.execute;
      const needsApproval = original.needsApproval;
      return [
        name,
        {
          ...original,
          inputSchema: jsonSchema(() => schema.jsonSchema, {
            validate: (value) =>
              refusedCallOf(value) !== undefined
                ? { success: true, value }
                : (schema.validate?.(value) ?? { success: true, value }),
          }),
          needsApproval: (input: unknown, options: Parameters<ToolNeedsApprovalFunction<unknown>>[1]) =>
            refusedCallOf(input) === undefined &&
            (typeof needsApproval === 'function' ? needsApproval(input, options) : (needsApproval ?? false)),
          ...(execute === undefined
            ? {}
            : {
                execute: (input: unknown, options: Parameters<NonNullable<Tool['execute']>>[1]): unknown => {
                  const refused = refusedCallOf(input);
                  return refused === undefined ? execute(input, options) : refusalOf(refused);
                },
              }),
        },
      ];
    }),
  );
}
