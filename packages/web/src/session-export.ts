/** A session's stored messages for the Export download (sessionMarkdown renders them). */
import type { BastionApi, Message } from '@bastion/bridge';
import { PAGE_MAX_LIMIT } from '@bastion/protocol';

/** Every stored message of the session, oldest first. */
export async function sessionMessages(bastion: BastionApi, sessionId: string): Promise<Message[]> {
  const messages: Message[] = [];
  let cursor: string | undefined;
  do {
    const page = await bastion.sessions.messages(sessionId, { limit: PAGE_MAX_LIMIT, cursor });
    messages.push(...page.messages);
    cursor = page.next ?? undefined;
  } while (cursor !== undefined);
  return messages;
}
