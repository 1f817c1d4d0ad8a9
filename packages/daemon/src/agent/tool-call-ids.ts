/**
 * A tool call's id is Bastion's own: each call a model makes gets a fresh random id (`call_…`,
 * storage/ids.ts) before the AI SDK parses, asks about, runs or stores it, and that id is the one
 * the transcript, the approvals, the audit log, the events and every later request carry. A
 * provider's ids cannot be trusted to be unique in a session: local OpenAI-compatible servers
 * (some llama.cpp and Ollama versions) answer `call_0` on every step, the demo model once numbered
 * its calls by the prompt's length (which a compaction shortens), and a hostile server can repeat
 * an id on purpose. A repeated id was refused by the approvals' unique (session, tool call) key
 * after its call was stored, and the call, left without a result, failed every later run.
 *
 * The provider is sent Bastion's ids, not its own, in later requests: so each request's ids are
 * unique, as every API expects, also after the session moves to another provider; they are 21
 * letters, digits, `_` and `-`, which the providers' id formats allow.
 */
import type { LanguageModelV3, LanguageModelV3Content, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { newId } from '../storage/ids.js';
import { withModelCalls } from './model-calls.js';

/** Bastion's ids for the calls of one model reply, given by the provider's id each arrives with. */
class ReplyCallIds {
  /** The provider's id → Bastion's, for the call it stands for now (the latest given it). */
  readonly #current = new Map<string, string>();
  /** Provider ids whose input is being streamed, the call itself not yet handed over. */
  readonly #streaming = new Set<string>();

  #fresh(providerId: string): string {
    const id = newId('call');
    this.#current.set(providerId, id);
    return id;
  }

  /** A call's input starts streaming: a new call, whatever its id. */
  #inputStart(providerId: string): string {
    this.#streaming.add(providerId);
    return this.#fresh(providerId);
  }

  /** The whole call: the id its input streamed under, else a new one (an id used again is a new call). */
  #call(providerId: string): string {
    const streamed = this.#streaming.delete(providerId) ? this.#current.get(providerId) : undefined;
    return streamed ?? this.#fresh(providerId);
  }

  /** A part about a call already made: its input's deltas, a result or an approval request. */
  #about(providerId: string): string {
    return this.#current.get(providerId) ?? this.#fresh(providerId);
  }

  /** `part` with Bastion's id in place of the provider's (a part that names no call, as it is). */
  part<Part extends LanguageModelV3StreamPart | LanguageModelV3Content>(part: Part): Part {
    if (part.type === 'tool-input-start') return { ...part, id: this.#inputStart(part.id) };
    if (part.type === 'tool-input-delta' || part.type === 'tool-input-end')
      return { ...part, id: this.#about(part.id) };
    if (part.type === 'tool-call') return { ...part, toolCallId: this.#call(part.toolCallId) };
    if (part.type === 'tool-result' || part.type === 'tool-approval-request')
      return { ...part, toolCallId: this.#about(part.toolCallId) };
    return part;
  }
}

/**
 * The same model with every tool call it makes given Bastion's own id (see the module comment).
 */
export function ownToolCallIds(model: LanguageModelV3): LanguageModelV3 {
  return withModelCalls(model, {
    doStream: async (options) => {
      const result = await model.doStream(options);
      const ids = new ReplyCallIds();
      return {
        ...result,
        stream: result.stream.pipeThrough(
          new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
            transform: (part, controller) => controller.enqueue(ids.part(part)),
          }),
        ),
      };
    },
    doGenerate: async (options) => {
      const result = await model.doGenerate(options);
      const ids = new ReplyCallIds();
      return { ...result, content: result.content.map((part) => ids.part(part)) };
    },
  });
}
