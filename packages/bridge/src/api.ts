/**
 * The typed surface of `window.bastion`, the only door the web app has to the agent. Shapes come
 * from @bastion/protocol (types only). There is no way to read a secret back: `secrets` can only
 * say whether a key is configured, set one, or delete one.
 */
import type {
  AgentAbortResponse,
  AgentRewindResponse,
  AgentRunResponse,
  AgentStreamEvent,
  AgentUndoResponse,
  ApprovalAnswer,
  AuditPage,
  ChatgptStatus,
  ConsentOutcome,
  CreateSessionRequest,
  Endpoint,
  EndpointListEntry,
  EventPageResponse,
  HandshakeResponse,
  HostAuditPage,
  HostAuditQuery,
  HostAskAnswer,
  HostAskList,
  ImageInput,
  McpAttachedResource,
  McpListing,
  McpPromptSent,
  McpPromptText,
  McpServerConfig,
  MessageListResponse,
  ModelListResponse,
  ModelRef,
  PermissionMode,
  PolicyListing,
  PolicyRule,
  PolicyRuleDraft,
  PromptListResponse,
  Session,
  SessionChangesResponse,
  SessionImageResponse,
  SessionListResponse,
  UpdateSessionRequest,
  WorkspaceFindResponse,
  WorkspaceReaddirResponse,
  WorkspacesListResponse,
} from '@bastion/protocol';

export type {
  AgentEvent,
  AgentStreamEvent,
  AgentRewindResponse,
  AgentUndoResponse,
  UndoFile,
  ApprovalAnswer,
  ChatgptStatus,
  ConsentOutcome,
  Endpoint,
  EndpointListEntry,
  EventPageResponse,
  HandshakeResponse,
  Message,
  MessagePart,
  ModelGroup,
  ModelListResponse,
  ModelOption,
  ModelRef,
  PermissionMode,
  ReasoningEffort,
  AuditEntry,
  HostAuditEntry,
  HostAuditPage,
  HostAsk,
  HostAskAnswer,
  HostAskList,
  McpAttachedResource,
  McpListing,
  McpPromptOrigin,
  McpPromptSent,
  McpPromptSummary,
  McpResourceSummary,
  McpServerConfig,
  McpServerState,
  McpServerStatus,
  McpTextOrigin,
  McpToolSummary,
  PolicyListing,
  PolicyRule,
  PolicyRuleDraft,
  PromptListResponse,
  RunContext,
  SavedPrompt,
  Session,
  SessionChange,
  SessionChangesResponse,
  TokenUsage,
} from '@bastion/protocol';

/** Providers whose API key the renderer may set or delete (custom endpoint ids are added by the daemon). */
export type SecretProvider = string;

/**
 * What goes with a message from MCP servers: the prompt its text came from (with the ranges of
 * the text it wrote), and the resources attached to it (their text, as the host read them).
 */
export interface AgentRunMcp {
  prompt?: McpPromptSent;
  resources?: readonly McpAttachedResource[];
}

export interface PageOptions {
  limit?: number;
  cursor?: string;
}

export interface AgentStreamOptions {
  /** Resume after this persisted event id (sent as `Last-Event-ID`). */
  lastEventId?: number;
  /**
   * The page's own random id (16+ base64url characters): its stream then shows the session as this
   * page's, which `sessions.deleteIfUntouched` with the same id does not count as another's.
   */
  viewer?: string;
  onEvent(event: AgentStreamEvent): void;
  signal?: AbortSignal;
}

export interface BastionApi {
  readonly version: 1;
  handshake(): Promise<HandshakeResponse>;
  readonly sessions: {
    /** Newest first; `search`: only those whose title, prompts or replies hold that text. */
    list(options?: PageOptions & { search?: string }): Promise<SessionListResponse>;
    create(request: CreateSessionRequest): Promise<Session>;
    get(sessionId: string): Promise<Session>;
    update(sessionId: string, request: UpdateSessionRequest): Promise<Session>;
    delete(sessionId: string): Promise<void>;
    /**
     * Remove a session New session made (`provisional`) if nothing was done in it and no page but
     * `viewer` (this page's id, as given to `agent.stream`) or `bastion chat` has it open; rejects
     * SESSION_IN_USE otherwise, removing nothing.
     */
    deleteIfUntouched(sessionId: string, viewer: string): Promise<void>;
    messages(sessionId: string, options?: PageOptions): Promise<MessageListResponse>;
    /** The persisted event log, newest page first (`cursor`: the previous page's `next`), with the prompts it names. */
    events(sessionId: string, options?: PageOptions): Promise<EventPageResponse>;
    /**
     * The watchdog's decision for each of the session's tool calls (no arguments beyond a command's
     * name), newest page first (`cursor`: the previous page's `next`).
     */
    audit(sessionId: string, options?: PageOptions): Promise<AuditPage>;
    /** An image a message of the session carries (a message part's `image_id`), in base64. */
    image(sessionId: string, imageId: string): Promise<SessionImageResponse>;
    /**
     * Each file the session's file tools changed so far, with a bounded diff from before its first
     * write to now, and how many commands ran (what they changed is not tracked). Rejects with
     * SESSION_NOT_FOUND, or WORKSPACE_NOT_GRANTED when the session's folder is not open here.
     */
    changes(sessionId: string): Promise<SessionChangesResponse>;
  };
  readonly agent: {
    /**
     * Send a message, with images when the session's model takes them; rejects with
     * IMAGES_NOT_SUPPORTED, IMAGE_TOO_LARGE, IMAGE_TYPE_UNSUPPORTED or IMAGE_INVALID, each in words.
     * With `sendId` (a fresh random id a send, e.g. the page's newClientId) the send is asked once more when
     * it got no answer (the agent restarting under it): the daemon stores it once whichever
     * arrives, and rejects SEND_ID_REUSED for the id used for another message. Without one it is
     * never asked twice.
     */
    run(
      sessionId: string,
      message: string,
      images?: readonly ImageInput[],
      mcp?: AgentRunMcp,
      sendId?: string,
    ): Promise<AgentRunResponse>;
    /**
     * A run that summarises the session's turns before its last exchange now (its events on the
     * stream); rejects with CONTEXT_NOTHING_TO_COMPACT when there is nothing older.
     */
    compact(sessionId: string): Promise<AgentRunResponse>;
    abort(sessionId: string): Promise<AgentAbortResponse>;
    /**
     * Put back the files a finished run wrote (earlier bytes restored, created files removed);
     * `dryRun` only says what that would do. Rejects with UNDO_CONFLICT (a file changed since),
     * UNDO_ALREADY_DONE, RUN_ACTIVE and the other undo codes, each with its message in words.
     */
    undo(sessionId: string, runId: string, options?: { dryRun?: boolean }): Promise<AgentUndoResponse>;
    /**
     * Take the session back to before the prompt of `runId`: that prompt and every later turn are
     * no longer sent to the model; with `files`, what they wrote is put back. `dryRun` only says
     * what that would do. Rejects with UNDO_CONFLICT, REWIND_ALREADY_DONE, REWIND_SUMMARISED,
     * RUN_ACTIVE and the other codes, each with its message in words.
     */
    rewind(
      sessionId: string,
      runId: string,
      options: { files: boolean; dryRun?: boolean },
    ): Promise<AgentRewindResponse>;
    /** Resolves when the stream ends (the daemon closed it, or `signal` aborted); rejects on failure. */
    stream(sessionId: string, options: AgentStreamOptions): Promise<void>;
  };
  /** The user's saved prompts (`<home>/prompts/*.md`), read afresh: run as `/NAME` in the message box. */
  readonly prompts: {
    list(): Promise<PromptListResponse>;
  };
  readonly models: {
    /** Every model a session can use now, grouped by provider, and the default for new sessions. */
    list(): Promise<ModelListResponse>;
    setDefault(ref: ModelRef): Promise<void>;
  };
  readonly approvals: {
    answer(sessionId: string, answer: ApprovalAnswer): Promise<AgentRunResponse>;
  };
  readonly mode: {
    /** Switching to `auto` records informed consent; the app asks for it first. */
    set(sessionId: string, mode: PermissionMode): Promise<Session>;
  };
  readonly workspaces: {
    list(): Promise<WorkspacesListResponse>;
    /** A folder's entries, `path` relative to the granted `root` (the message box's `@` list). */
    readdir(root: string, path: string): Promise<WorkspaceReaddirResponse>;
    /** Files and folders anywhere in `root` whose names hold `query` (the message box's `@` list). */
    find(root: string, query: string): Promise<WorkspaceFindResponse>;
    /** The host asks the person at the terminal; the answer comes back here. */
    requestGrant(path: string): Promise<ConsentOutcome>;
  };
  readonly secrets: {
    has(provider: SecretProvider): Promise<boolean>;
    set(provider: SecretProvider, key: string): Promise<void>;
    delete(provider: SecretProvider): Promise<void>;
  };
  readonly endpoints: {
    list(): Promise<EndpointListEntry[]>;
    /** Save a definition in endpoints.json (not a grant: that needs the host's consent). */
    define(definition: Endpoint): Promise<void>;
    delete(id: string): Promise<void>;
    /** The models the endpoint's `/models` lists, through the host transport (needs the grant). */
    probe(id: string): Promise<string[]>;
    /** The host asks (its terminal, or its own confirmation page) before any grant exists. */
    requestConsent(url: string): Promise<ConsentOutcome>;
  };
  /** The watchdog's rules, kept by the host: `workspace` is a granted root (its project), null the global rules. */
  readonly policy: {
    list(workspace: string | null): Promise<PolicyListing>;
    add(workspace: string | null, rule: PolicyRuleDraft): Promise<{ rule: PolicyRule }>;
    remove(workspace: string | null, id: string): Promise<{ removed: boolean }>;
    /** The host's own audit log (the sidecar cannot write it), newest first, a page at a time. */
    audit(query?: HostAuditQuery): Promise<HostAuditPage>;
  };
  /**
   * Tool calls the host holds because its policy asks about them: the host's question, answered
   * here to the host itself (never through the agent). `wait(after)` waits until the list's
   * revision passes `after` (or a while), so the page follows it by asking again. `always-allow`
   * saves the host's own `always_allow` rule of that call first; `rule` is what it saved.
   */
  readonly asks: {
    wait(after?: number): Promise<HostAskList>;
    answer(id: string, answer: HostAskAnswer): Promise<{ answered: boolean; rule?: PolicyRule }>;
  };
  /**
   * MCP servers, kept by the host in its own mcp.json (never the daemon's, never a project's):
   * `workspace` is a granted root, where each server runs in the sandbox and has its state and
   * tools. `add` saves the server and starts it there, answering once it is ready or has failed;
   * `remove` stops it everywhere and drops it from the file; `restart` stops it everywhere and
   * starts it in `workspace`. Each answers with the workspace's listing; refusals carry a code
   * (MCP_SERVER_INVALID, MCP_SERVER_EXISTS, MCP_SERVER_NOT_FOUND, …) and words.
   */
  readonly mcp: {
    list(workspace: string): Promise<McpListing>;
    add(workspace: string, server: McpServerConfig): Promise<McpListing>;
    remove(workspace: string, name: string): Promise<McpListing>;
    restart(workspace: string, name: string): Promise<McpListing>;
    /**
     * The message box's: the listing once every server is started in `workspace` (as a run starts
     * them) or failed, with the ready ones' prompts and resources; a prompt of a ready server run
     * with the person's arguments (its text, for the box); a resource it listed, read (its text;
     * refused with MCP_RESOURCE_NOT_TEXT or MCP_RESOURCE_TOO_LARGE, never cut); with `variables`,
     * `uri` is a resource template it listed, read at the URI the host expands it to with them.
     */
    catalog(workspace: string): Promise<McpListing>;
    prompt(workspace: string, server: string, name: string, args: Record<string, string>): Promise<McpPromptText>;
    resource(
      workspace: string,
      server: string,
      uri: string,
      variables?: Record<string, string>,
    ): Promise<McpAttachedResource>;
  };
  readonly chatgpt: {
    connect(): Promise<ChatgptStatus>;
    cancel(): Promise<ChatgptStatus>;
    status(): Promise<ChatgptStatus>;
    signOut(): Promise<ChatgptStatus>;
  };
}

declare global {
  interface Window {
    readonly bastion?: BastionApi;
  }
}
