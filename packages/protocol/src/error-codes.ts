/**
 * Every stable error code that crosses a process boundary, by area, and the HTTP status each is
 * answered with. A code is a member of exactly one area's union; `WIRE_ERROR_STATUS` is keyed by
 * all of them, so a new code without a status fails to compile, and a misspelt code at a throw
 * site does too. Messages travel beside a code but are chosen where it is raised, never here.
 */

/** Channel v1 (host ↔ sidecar). `CHANNEL_FRAME_*` are frames that fail to decode or their schema; the others break the channel's state rules. The first one closes the channel. */
export type ChannelErrorCode =
  | 'CHANNEL_FRAME_EMPTY'
  | 'CHANNEL_FRAME_TOO_LARGE'
  | 'CHANNEL_FRAME_UTF8'
  | 'CHANNEL_FRAME_JSON'
  | 'CHANNEL_FRAME_VERSION'
  | 'CHANNEL_FRAME_SCHEMA'
  /** A transport frame names a request id that was never started on this channel. */
  | 'CHANNEL_UNKNOWN_REQUEST'
  /** A `request.start` reuses the id of a live or finished request. */
  | 'CHANNEL_REQUEST_ID_REUSED'
  /** A body chunk carries more bytes than the receiver granted as credit. */
  | 'CHANNEL_CREDIT_EXCEEDED'
  /** A frame arrives in a state that does not accept it (a chunk after its end, a second start or bootstrap). */
  | 'CHANNEL_FRAME_OUT_OF_ORDER'
  /** A `grant.update` whose revision is not above the last one, or a `grant.applied` for a revision never sent. */
  | 'CHANNEL_GRANT_REVISION'
  | 'CHANNEL_FAILED'
  | 'CHANNEL_CLOSED';

/** The daemon's perimeter, in the order the guards run. */
export type PerimeterErrorCode = 'PERIMETER_HOST' | 'PERIMETER_ORIGIN' | 'PERIMETER_REFERER' | 'PERIMETER_AUTH';

/** A daemon request that is malformed as a request: its body, its length, its path. */
export type RequestErrorCode =
  | 'BAD_REQUEST'
  | 'BAD_CURSOR'
  | 'BODY_LENGTH_REQUIRED'
  | 'BODY_LENGTH_INVALID'
  | 'BODY_TOO_LARGE'
  | 'ROUTE_NOT_FOUND'
  /** Anything not coded: answered with a fixed message, logged with the error's own code if it has one. */
  | 'INTERNAL';

/** sessions.db and the disk under userData. */
export type StorageErrorCode =
  | 'STORAGE_FULL'
  | 'STORAGE_READ_ONLY'
  /** userData is on a disk this user may not write (the host's start-up check). */
  | 'STORAGE_NOT_WRITABLE'
  /** sessions.db is not a SQLite database, or cannot be opened (the host's start-up check). */
  | 'STORE_NOT_A_DATABASE'
  | 'STORE_UNREADABLE'
  | 'STORE_CORRUPT'
  | 'STORE_WRITE_FAILED'
  | 'STORE_TOO_NEW'
  | 'STORE_MIGRATION_FAILED';

/** Sessions and their settings. */
export type SessionErrorCode =
  | 'SESSION_NOT_FOUND'
  | 'WORKSPACE_NOT_GRANTED'
  | 'PROVIDER_UNKNOWN'
  | 'MESSAGE_TOO_LARGE'
  /** `DELETE /sessions/:id?if_untouched=true` of a session touched, or shown elsewhere. */
  | 'SESSION_IN_USE'
  /** A send's `client_id` used again for a different message (a repeat of the same send is answered, not refused). */
  | 'SEND_ID_REUSED'
  /** A reasoning effort asked for a model that takes none. */
  | 'REASONING_NOT_SUPPORTED'
  /** A message with images to a model that takes none. */
  | 'IMAGES_NOT_SUPPORTED'
  /** An attached image over IMAGE_MAX_BYTES. */
  | 'IMAGE_TOO_LARGE'
  /** An attached image that is not PNG, JPEG, GIF or WebP by its first bytes. */
  | 'IMAGE_TYPE_UNSUPPORTED'
  /** An attached image whose `data` is not standard base64. */
  | 'IMAGE_INVALID'
  | 'IMAGE_NOT_FOUND';

/** Agent runs: starting one, and how one ends (`run-error` events). */
export type RunErrorCode =
  | 'RUN_ACTIVE'
  | 'RUN_LIMIT'
  | 'STREAM_LIMIT'
  | 'RUN_ABORTED'
  | 'RUN_INTERRUPTED'
  | 'PROVIDER_FAILED'
  | 'PROVIDER_UNAVAILABLE'
  | 'PROVIDER_RATE_LIMITED'
  | 'PROVIDER_KEY_MISSING'
  | 'PROVIDER_TRANSPORT_UNAVAILABLE'
  /** One event of the model's reply, or a whole reply not streamed, passed MODEL_MAX_UNPARSED_REPLY_BYTES: it stopped being read. */
  | 'PROVIDER_REPLY_TOO_LARGE'
  /** The provider's reply could not be read as its API's: a stream event that is not JSON, or a stream that ended unfinished. */
  | 'PROVIDER_REPLY_INVALID'
  | 'CONTEXT_COMPACTION_FAILED'
  | 'CONTEXT_NOTHING_TO_COMPACT'
  | 'CONTEXT_SUMMARY_UNKNOWN_MESSAGE'
  /** The session's stored messages could not be made into a request (the AI SDK refused them). */
  | 'TRANSCRIPT_INVALID';

/** Answers to tool approvals. */
export type ApprovalErrorCode =
  | 'APPROVAL_PENDING'
  | 'APPROVAL_UNKNOWN'
  | 'APPROVAL_OTHER_SESSION'
  | 'APPROVAL_TOOL_CALL_MISMATCH'
  | 'APPROVAL_ALREADY_ANSWERED'
  | 'APPROVAL_CANCELLED';

/** Undoing a run's file changes. */
export type UndoErrorCode =
  /** A file holds other bytes than the run left (edited since, by a later run, a command or a person); nothing was touched. */
  | 'UNDO_CONFLICT'
  /** The run was undone before. */
  | 'UNDO_ALREADY_DONE'
  /** The run changed no file through the file tools, or none of its files can be undone. */
  | 'UNDO_NOTHING'
  /** No such run in this session. */
  | 'UNDO_RUN_NOT_FOUND'
  /** A file could not be written back; the ones before it were, and a second undo finishes the rest. */
  | 'UNDO_FAILED'
  /** No such run in this session, or a run that started without a prompt (an approval's answer). */
  | 'REWIND_RUN_NOT_FOUND'
  /** The turn is already out of the conversation (an earlier rewind took it). */
  | 'REWIND_ALREADY_DONE'
  /** The turn was summarised into the session's context by a compaction; a summary cannot be taken apart. */
  | 'REWIND_SUMMARISED';

/** Refusal codes of workspace file access, shared by the routes and the agent's file tools. */
export type WorkspaceErrorCode =
  | 'FS_OUTSIDE_WORKSPACE'
  | 'FS_PROTECTED'
  | 'FS_NOT_FOUND'
  | 'FS_NOT_A_FILE'
  | 'FS_NOT_A_DIRECTORY'
  | 'FS_SYMLINK'
  | 'FS_TOO_LARGE'
  | 'FS_NO_WORKSPACE'
  /** The disk holding the file is full (ENOSPC), or the user's quota used up (EDQUOT); nothing was written. */
  | 'FS_DISK_FULL'
  /** A name in the path is longer than the file system takes (ENAMETOOLONG: 255 bytes on most), or the whole path is. */
  | 'FS_NAME_TOO_LONG'
  /** The file system's permissions refuse the access (EACCES, EPERM). */
  | 'FS_ACCESS_DENIED'
  /** The file system holding the path is mounted read-only (EROFS). */
  | 'FS_READ_ONLY'
  | 'FS_IO';

/**
 * What the host answers a sidecar's `workspace.write` / `workspace.remove` with when it does not
 * perform it (host workspaces/workspace-writes.ts): a refusal of the file access itself, keeping
 * the code the file tools always gave, a policy rule's denial (or its `ask` the person did not
 * approve at the host's own prompt), a file that is no longer the one the person was shown when
 * asked about the write, a request the host will not take (too many at once, an id in use,
 * bytes that do not add up to the size announced), or a disk with no room left: the workspace's
 * (FS_DISK_FULL) or userData's, where the host journals each temp file first (STORAGE_FULL).
 */
export const WORKSPACE_WRITE_ERROR_CODES = [
  'FS_OUTSIDE_WORKSPACE',
  'FS_PROTECTED',
  'FS_NOT_FOUND',
  'FS_NOT_A_FILE',
  'FS_NOT_A_DIRECTORY',
  'FS_SYMLINK',
  'FS_TOO_LARGE',
  'FS_DISK_FULL',
  'FS_NAME_TOO_LONG',
  'FS_ACCESS_DENIED',
  'FS_READ_ONLY',
  'FS_IO',
  'FS_CHANGED_SINCE_SHOWN',
  'STORAGE_FULL',
  'POLICY_DENIED',
  'POLICY_UNAPPROVED',
  'WORKSPACE_WRITE_BUSY',
  'WORKSPACE_WRITE_DUPLICATE_ID',
  'WORKSPACE_WRITE_SIZE_MISMATCH',
] as const;
export type WorkspaceWriteErrorCode = (typeof WORKSPACE_WRITE_ERROR_CODES)[number];

/** The agent's tools, as their results tell the model and the UI. */
export type ToolErrorCode =
  | 'TOOL_FAILED'
  | 'TOOL_DENIED'
  | 'MODE_REFUSED'
  | 'EDIT_NO_MATCH'
  | 'EDIT_AMBIGUOUS'
  /** edit_file on a file that is not UTF-8 text (a NUL byte, or another encoding): it would rewrite the rest. */
  | 'EDIT_NOT_TEXT'
  /** A model's call whose input passed MODEL_MAX_TOOL_INPUT_BYTES (or its step's, MODEL_MAX_STEP_TOOL_INPUT_BYTES): not run. */
  | 'TOOL_INPUT_TOO_LARGE'
  /** A model's call past MODEL_MAX_TOOL_CALLS_PER_STEP in one step: not run. */
  | 'TOOL_CALLS_TOO_MANY'
  | 'READ_RANGE_PAST_END'
  | 'SEARCH_FAILED'
  | 'SEARCH_UNAVAILABLE'
  /** The explorer's model call failed (the parent run goes on; a secret-egress block ends it instead). */
  | 'EXPLORE_FAILED'
  /** The explorer stopped without an answer. */
  | 'EXPLORE_NO_ANSWER';

/** Refusal codes of `run_command` in the daemon, before anything is sent to the host. Each says what was refused, never which path. */
export type ShellErrorCode =
  | 'SHELL_UNAVAILABLE'
  | 'SHELL_COMMAND_INVALID'
  | 'SHELL_ARGS_TOO_MANY'
  | 'SHELL_ARG_TOO_LONG'
  | 'SHELL_ARGV_TOO_LARGE'
  | 'SHELL_ARG_NUL'
  | 'SHELL_ARG_PROTECTED'
  | 'SHELL_ARG_UNRESOLVABLE'
  | 'SHELL_CWD_MISSING'
  | 'SHELL_CWD_NOT_DIRECTORY'
  | 'SHELL_CWD_PROTECTED'
  | 'SHELL_CWD_OTHER_WORKSPACE'
  | 'SHELL_CWD_OUTSIDE_WORKSPACE'
  | 'SHELL_HOST_REFUSED'
  | 'SHELL_ABORTED'
  | 'MODE_READ_ONLY';

/** The host's refusals of a `command.request` (`command.error` frames), passed to the model as they are. */
export type CommandErrorCode =
  | 'COMMAND_NAME_REFUSED'
  | 'COMMAND_ARGV_REFUSED'
  | 'COMMAND_CWD_REFUSED'
  | 'COMMAND_ROOT_REFUSED'
  | 'COMMAND_SCRATCH_REFUSED'
  | 'COMMAND_DUPLICATE_ID'
  | 'COMMAND_QUEUE_FULL'
  | 'COMMAND_SHELL_UNAVAILABLE'
  | 'COMMAND_SANDBOX_FAILED'
  | 'COMMAND_SPAWN_FAILED'
  | 'COMMAND_POLICY_DENIED'
  | 'COMMAND_POLICY_UNAPPROVED';

/**
 * The host's answers to a sidecar's `mcp.call` that ran no tool, or whose server failed it
 * (`mcp.error` frames), passed to the model as they are.
 */
export const MCP_CALL_ERROR_CODES = [
  /** Commands run unsandboxed here: MCP servers do not run at all. */
  'MCP_UNAVAILABLE',
  'MCP_SERVER_UNKNOWN',
  /** The server could not be started, or stopped; its status says why. */
  'MCP_SERVER_FAILED',
  'MCP_TOOL_UNKNOWN',
  'MCP_ARGUMENTS_INVALID',
  'MCP_CALL_TIMEOUT',
  /** The server answered the call with a protocol error, or broke the protocol. */
  'MCP_CALL_FAILED',
  'MCP_POLICY_DENIED',
  'MCP_POLICY_UNAPPROVED',
  'MCP_BUSY',
  'MCP_DUPLICATE_ID',
  'MCP_WORKSPACE_REFUSED',
] as const;
export type McpCallErrorCode = (typeof MCP_CALL_ERROR_CODES)[number];

/**
 * A server's prompt run or resource read for the person (host IPC `mcp.prompt`/`mcp.resource`,
 * `bastion chat`), besides MCP_UNAVAILABLE, MCP_SERVER_UNKNOWN and MCP_SERVER_FAILED.
 */
export type McpOfferErrorCode =
  | 'MCP_PROMPT_UNKNOWN'
  /** An argument the prompt does not take, or one it needs that was not given. */
  | 'MCP_PROMPT_ARGUMENTS_INVALID'
  /** Its messages are longer than a message may be: refused, not cut. */
  | 'MCP_PROMPT_TOO_LARGE'
  | 'MCP_RESOURCE_UNKNOWN'
  /** A resource template's values: one it does not take or one missing, or an expanded URI not one word within MCP_RESOURCE_URI_MAX_CHARS. */
  | 'MCP_TEMPLATE_VALUES_INVALID'
  /** Binary contents (a blob): only text is attached. */
  | 'MCP_RESOURCE_NOT_TEXT'
  /** Its text is over MCP_RESOURCE_TEXT_MAX_BYTES: refused, not cut. */
  | 'MCP_RESOURCE_TOO_LARGE'
  /** The server answered with an error, broke the protocol, or did not answer in time. */
  | 'MCP_READ_FAILED';

/** Editing the MCP server list (host IPC, the control socket, `bastion mcp`). */
export type McpConfigErrorCode =
  'MCP_SERVER_INVALID' | 'MCP_SERVER_EXISTS' | 'MCP_SERVER_NOT_FOUND' | 'MCP_TOO_MANY_SERVERS' | 'MCP_CONFIG_INVALID';

/** Network grants: which origins the host lets the sidecar reach. */
export type GrantErrorCode = 'GRANT_UNKNOWN' | 'GRANT_REVOKED' | 'GRANT_LIMIT' | 'GRANT_DECLINED';

/**
 * The host-routed provider transport: the host's refusals and upstream failures (`response.error`
 * frames, which also carry the grant codes), and the sidecar's own refusals before a frame is sent.
 */
export const TRANSPORT_ERROR_CODES = [
  // Host: the request itself.
  'TRANSPORT_OP_MISMATCH',
  'TRANSPORT_URL_NOT_CANONICAL',
  'TRANSPORT_URL_USERINFO',
  'TRANSPORT_URL_SCHEME',
  'TRANSPORT_ORIGIN_NOT_GRANTED',
  'TRANSPORT_ASSET_NOT_HTTPS',
  'TRANSPORT_ASSET_CREDENTIALS',
  'TRANSPORT_METHOD',
  'TRANSPORT_BODY_NOT_ALLOWED',
  'TRANSPORT_HEADER_FORBIDDEN',
  'TRANSPORT_HEADERS_TOO_LARGE',
  'TRANSPORT_TOO_MANY_REQUESTS',
  'TRANSPORT_BODY_TOO_LARGE',
  'TRANSPORT_CONTENT_LENGTH_MISMATCH',
  // Host: redirects, each hop re-authorised.
  'TRANSPORT_TOO_MANY_REDIRECTS',
  'TRANSPORT_REDIRECT_INVALID',
  'TRANSPORT_REDIRECT_DOWNGRADE',
  'TRANSPORT_REDIRECT_CREDENTIALS',
  'TRANSPORT_REDIRECT_NOT_GRANTED',
  'TRANSPORT_REDIRECT_BODY',
  // Host: the response.
  'TRANSPORT_RESPONSE_HEADERS_TOO_LARGE',
  'TRANSPORT_RESPONSE_TOO_LARGE',
  // Host: the egress guard (SEC-004 secrets discipline).
  'EGRESS_SECRET',
  'EGRESS_GUARD_UNAVAILABLE',
  // Host: upstream failures, never the error's message.
  'UPSTREAM_CONNECT_TIMEOUT',
  'UPSTREAM_HEADERS_TIMEOUT',
  'UPSTREAM_BODY_TIMEOUT',
  'UPSTREAM_HEADERS_OVERFLOW',
  'UPSTREAM_CONNECTION_REFUSED',
  'UPSTREAM_CONNECTION_RESET',
  'UPSTREAM_DNS',
  'UPSTREAM_TLS',
  'UPSTREAM_FAILED',
  // Grants, checked per request and per hop.
  'GRANT_UNKNOWN',
  'GRANT_REVOKED',
  // Sidecar: before or while sending.
  'TRANSPORT_URL_TOO_LONG',
  'TRANSPORT_NO_GRANT',
  'TRANSPORT_CANCELLED',
  'AMBIENT_FETCH_DISABLED',
] as const satisfies readonly (
  `TRANSPORT_${string}` | `UPSTREAM_${string}` | `EGRESS_${string}` | GrantErrorCode | 'AMBIENT_FETCH_DISABLED'
)[];
export type TransportErrorCode = (typeof TRANSPORT_ERROR_CODES)[number];

/** The watchdog policy: its decisions and its store of rules. */
export type PolicyErrorCode =
  | 'POLICY_DENIED'
  | 'POLICY_UNAPPROVED'
  | 'POLICY_PROJECT_UNKNOWN'
  | 'POLICY_RULE_INVALID'
  | 'POLICY_RULE_EXISTS'
  | 'POLICY_RULE_BUILTIN'
  | 'POLICY_TOO_MANY_RULES'
  | 'POLICY_FILE_INVALID'
  | 'POLICY_ALWAYS_ALLOW_UNAVAILABLE';

/** The host's own private files (policy.json): the read discipline's refusals. */
export type PrivateFileErrorCode =
  | 'PRIVATE_FILE_UNREADABLE'
  | 'PRIVATE_FILE_SYMLINK'
  | 'PRIVATE_FILE_OWNER'
  | 'PRIVATE_FILE_NOT_REGULAR'
  | 'PRIVATE_FILE_PERMISSIONS'
  | 'PRIVATE_FILE_TOO_LARGE';

/** Host IPC (`/_host/ipc/<channel>`): the guard's refusals in the order the checks run, then handler failures. */
export type HostIpcErrorCode =
  | 'IPC_CHANNEL'
  | 'IPC_METHOD'
  | 'IPC_SESSION'
  | 'IPC_ORIGIN'
  | 'IPC_REFERER'
  | 'IPC_PAGE'
  /** The session cookie came without its page key: a replayed cookie, or a page not opened from a launch link. */
  | 'IPC_PAGE_KEY'
  | 'IPC_BODY_TOO_LARGE'
  | 'IPC_BODY'
  | 'IPC_FAILED'
  | 'SIDECAR_UNAVAILABLE'
  | 'WORKSPACE_PATH';

/** The host's answers to a person's consent asked from the UI (a workspace, an endpoint), and why none was asked. */
export type ConsentErrorCode =
  /** No terminal and no consent page can ask anybody. */
  | 'CONSENT_NOBODY'
  /** A request to the consent page from another origin (logged, answered 403 by the page). */
  | 'CONSENT_ORIGIN'
  | 'WORKSPACE_DECLINED'
  /** A workspace the person approved that the host could not grant (its start failed, not a sandbox code). */
  | 'WORKSPACE_REFUSED'
  | 'DECLINED_ON_PAGE'
  | 'DECLINED_IN_TERMINAL';

/** SEC-008: the host's one-shot OAuth callback listener's refusals, each answered with a fixed page. */
export type CallbackErrorCode =
  | 'CALLBACK_PEER'
  | 'CALLBACK_TARGET_TOO_LONG'
  | 'CALLBACK_HOST'
  | 'CALLBACK_METHOD'
  | 'CALLBACK_BODY'
  | 'CALLBACK_PATH'
  | 'CALLBACK_PARAMS'
  | 'CALLBACK_DUPLICATE'
  | 'CALLBACK_STATE'
  | 'CALLBACK_CODE'
  | 'CALLBACK_CLAIMED';

/** The host control socket (`host.sock`), as the CLI hears it, and `bastion undo`'s own refusals. */
export type ControlErrorCode =
  | 'CONTROL_BAD_REQUEST'
  | 'CONTROL_REQUEST_TOO_LARGE'
  /** The running host failed with something not coded. */
  | 'CONTROL_FAILED'
  | 'CONTROL_BAD_ANSWER'
  | 'CONTROL_TIMEOUT'
  /** A session's markdown is longer than a control answer may be (`bastion sessions export`). */
  | 'EXPORT_TOO_LARGE'
  | 'UNDO_NO_SESSION'
  | 'UNDO_NO_RUN';

/** SEC-004: a sandbox policy the host refuses to run under (sandbox-policy-check.ts). */
export type SandboxPolicyErrorCode =
  | 'SANDBOX_POLICY_INVALID'
  | 'SANDBOX_POLICY_BROAD_DOMAIN'
  | 'SANDBOX_POLICY_LOCAL_ACCESS'
  | 'SANDBOX_POLICY_FILESYSTEM_DISABLED'
  | 'SANDBOX_POLICY_BROAD_WRITE_ROOT'
  | 'SANDBOX_POLICY_SECRET_NOT_DENIED'
  | 'SANDBOX_POLICY_HOME_READABLE';

/** The host process's own failures: its home, its servers, the sidecar it supervises, its daemon client. The CLI prints them. */
export type HostProcessErrorCode =
  | 'HOME_IN_USE'
  | 'HOME_LOCK_FAILED'
  | 'HOME_LOCK_CORRUPT'
  | 'HOME_EMPTY'
  | 'HOME_NOT_A_DIRECTORY'
  | 'HOME_NOT_BASTION'
  | 'FILE_EDIT_BUSY'
  | 'USERDATA_HOST_DIR_INVALID'
  | 'HOST_TEMP_CLAIMED'
  /** `<tmpdir>/bastion-<uid>`, where hosts claim their temp roots, is not a private directory of this user's. */
  | 'HOST_TEMP_UNSAFE'
  | 'HOST_AUDIT_UNREADABLE'
  | 'LISTEN_FAILED'
  | 'UI_NOT_BUILT'
  | 'CSP_VALUE'
  | 'IPC_DUPLICATE'
  | 'OAUTH_CONFIG'
  | 'SANDBOX_INIT'
  | 'SANDBOX_WRAP'
  | 'SANDBOX_ENV'
  | 'SIDECAR_SPAWN'
  | 'SIDECAR_STOPPED'
  | 'SIDECAR_NOT_READY'
  | 'SIDECAR_RESPAWN_FAILED'
  | 'DAEMON_UNREACHABLE'
  | 'DAEMON_RESPONSE'
  | 'DAEMON_RESPONSE_TOO_LARGE'
  | 'DAEMON_EVENT_TOO_LARGE'
  | 'DAEMON_EVENT_INVALID';

/**
 * SEC-008: the ChatGPT boundary. Each travels with a fixed message only: never a token, claim,
 * authorization URL, account id or upstream body.
 */
export type ChatgptErrorCode =
  | 'OAUTH_UNAVAILABLE'
  | 'OAUTH_HOST_ONLY'
  | 'OAUTH_BAD_REQUEST'
  | 'OAUTH_ATTEMPT'
  | 'OAUTH_STATE'
  | 'OAUTH_TIMEOUT'
  | 'OAUTH_CANCELLED'
  | 'OAUTH_DENIED'
  | 'OAUTH_CALLBACK_PORT'
  | 'OAUTH_AUTHORIZATION_URL'
  | 'OAUTH_EXCHANGE'
  | 'OAUTH_REFRESH'
  | 'OAUTH_SIGNED_OUT'
  | 'OAUTH_SUPERSEDED'
  | 'PROVIDER_ENTITLEMENT'
  | 'PROVIDER_RATE_LIMIT'
  | 'PROVIDER_MODEL'
  | 'PROVIDER_DESTINATION';

/** A custom endpoint's base URL that the shared eligibility check refuses. */
export type EndpointUrlErrorCode =
  | 'ENDPOINT_URL_INVALID'
  | 'ENDPOINT_URL_SCHEME'
  | 'ENDPOINT_URL_USERINFO'
  | 'ENDPOINT_URL_QUERY'
  | 'ENDPOINT_HOST_INELIGIBLE';

/** Custom endpoints (`/providers/endpoints/*`): definitions, and probing their model listing. */
export type EndpointErrorCode =
  | EndpointUrlErrorCode
  | 'ENDPOINT_BAD_REQUEST'
  | 'ENDPOINT_BAD_CONTEXT_WINDOW'
  | 'ENDPOINT_UNKNOWN'
  | 'ENDPOINT_LIMIT'
  | 'ENDPOINT_NOT_GRANTED'
  | 'ENDPOINT_KEY_UNREADABLE'
  | 'ENDPOINT_PROBE_STATUS'
  | 'ENDPOINT_PROBE_FORMAT'
  | 'ENDPOINT_UNREACHABLE';

/** API keys (`/secrets/*`) and the sidecar's private files that hold them (auth.json, endpoints.json, preferences.json). */
export type SecretsErrorCode =
  | 'SECRETS_BAD_REQUEST'
  | 'SECRETS_PROVIDER_UNKNOWN'
  | 'SECRETS_STORE_FAILED'
  | 'SECRETS_FILE_SYMLINK'
  | 'SECRETS_FILE_UNREADABLE'
  | 'SECRETS_FILE_NOT_REGULAR'
  | 'SECRETS_FILE_OWNER'
  | 'SECRETS_FILE_PERMISSIONS'
  | 'SECRETS_FILE_TOO_LARGE'
  | 'SECRETS_FILE_CORRUPT';

/** Every code the daemon raises: its HTTP answers, its events' and tool results' codes. */
export type DaemonErrorCode =
  | PerimeterErrorCode
  | RequestErrorCode
  | StorageErrorCode
  | SessionErrorCode
  | RunErrorCode
  | ApprovalErrorCode
  | UndoErrorCode
  | WorkspaceErrorCode
  | WorkspaceWriteErrorCode
  | ToolErrorCode
  | ShellErrorCode
  | CommandErrorCode
  | McpCallErrorCode
  | TransportErrorCode
  | ChatgptErrorCode
  | EndpointErrorCode
  | SecretsErrorCode
  | 'POLICY_DENIED'
  | 'POLICY_UNAPPROVED';

/** Every code the host raises (HostError) or relays: to the renderer, to the CLI through the control socket, to its log. */
export type HostErrorCode =
  | HostProcessErrorCode
  | HostIpcErrorCode
  | ControlErrorCode
  | ConsentErrorCode
  | CallbackErrorCode
  | SandboxPolicyErrorCode
  | PolicyErrorCode
  | McpConfigErrorCode
  | McpOfferErrorCode
  | PrivateFileErrorCode
  | GrantErrorCode
  | DaemonErrorCode;

/**
 * The bridge's own failures in the renderer (nothing answered, or an answer that is no wire
 * error), besides the wire codes it reads off answers and DAEMON_EVENT_* for a stream it cannot read.
 */
export type BridgeErrorCode = 'UNREACHABLE' | 'HTTP_ERROR';

/** Every code an answer between Bastion's processes may carry (the daemon's routes, host IPC, the control socket). */
export type WireErrorCode = DaemonErrorCode | HostErrorCode;

/** The statuses Bastion answers errors with. */
export type HttpErrorStatus =
  400 | 401 | 403 | 404 | 405 | 409 | 410 | 411 | 413 | 414 | 415 | 429 | 500 | 502 | 503 | 507;

/**
 * The one status of each code. Codes that only travel in events, frames or tool results (a run's
 * end, a transport refusal) are 500 should one ever surface as an HTTP answer: it would be a bug.
 */
export const WIRE_ERROR_STATUS: Readonly<Record<WireErrorCode, HttpErrorStatus>> = {
  PERIMETER_HOST: 403,
  PERIMETER_ORIGIN: 403,
  PERIMETER_REFERER: 403,
  PERIMETER_AUTH: 401,

  BAD_REQUEST: 400,
  BAD_CURSOR: 400,
  BODY_LENGTH_REQUIRED: 411,
  BODY_LENGTH_INVALID: 400,
  BODY_TOO_LARGE: 413,
  ROUTE_NOT_FOUND: 404,
  INTERNAL: 500,

  STORAGE_FULL: 507,
  STORAGE_READ_ONLY: 507,
  STORAGE_NOT_WRITABLE: 507,
  STORE_NOT_A_DATABASE: 500,
  STORE_UNREADABLE: 500,
  STORE_CORRUPT: 500,
  STORE_WRITE_FAILED: 500,
  STORE_TOO_NEW: 500,
  STORE_MIGRATION_FAILED: 500,

  SESSION_NOT_FOUND: 404,
  WORKSPACE_NOT_GRANTED: 403,
  PROVIDER_UNKNOWN: 400,
  REASONING_NOT_SUPPORTED: 400,
  MESSAGE_TOO_LARGE: 413,
  SEND_ID_REUSED: 409,
  SESSION_IN_USE: 409,
  IMAGES_NOT_SUPPORTED: 400,
  IMAGE_TOO_LARGE: 413,
  IMAGE_TYPE_UNSUPPORTED: 415,
  IMAGE_INVALID: 400,
  IMAGE_NOT_FOUND: 404,

  RUN_ACTIVE: 409,
  RUN_LIMIT: 429,
  STREAM_LIMIT: 429,
  RUN_ABORTED: 500,
  RUN_INTERRUPTED: 500,
  PROVIDER_FAILED: 500,
  PROVIDER_UNAVAILABLE: 500,
  PROVIDER_RATE_LIMITED: 500,
  PROVIDER_KEY_MISSING: 500,
  PROVIDER_TRANSPORT_UNAVAILABLE: 500,
  PROVIDER_REPLY_TOO_LARGE: 500,
  PROVIDER_REPLY_INVALID: 500,
  CONTEXT_COMPACTION_FAILED: 500,
  CONTEXT_NOTHING_TO_COMPACT: 409,
  CONTEXT_SUMMARY_UNKNOWN_MESSAGE: 500,
  TRANSCRIPT_INVALID: 500,

  APPROVAL_PENDING: 409,
  APPROVAL_UNKNOWN: 404,
  APPROVAL_OTHER_SESSION: 403,
  APPROVAL_TOOL_CALL_MISMATCH: 409,
  APPROVAL_ALREADY_ANSWERED: 409,
  APPROVAL_CANCELLED: 409,

  UNDO_CONFLICT: 409,
  UNDO_ALREADY_DONE: 409,
  UNDO_NOTHING: 409,
  UNDO_RUN_NOT_FOUND: 404,
  UNDO_FAILED: 500,
  REWIND_RUN_NOT_FOUND: 404,
  REWIND_ALREADY_DONE: 409,
  REWIND_SUMMARISED: 409,

  FS_OUTSIDE_WORKSPACE: 403,
  FS_PROTECTED: 403,
  FS_NOT_FOUND: 404,
  FS_NOT_A_FILE: 400,
  FS_NOT_A_DIRECTORY: 400,
  FS_SYMLINK: 409,
  FS_TOO_LARGE: 413,
  FS_NO_WORKSPACE: 400,
  FS_DISK_FULL: 507,
  FS_NAME_TOO_LONG: 400,
  FS_ACCESS_DENIED: 403,
  FS_READ_ONLY: 403,
  FS_IO: 500,
  WORKSPACE_WRITE_BUSY: 503,
  WORKSPACE_WRITE_DUPLICATE_ID: 500,
  WORKSPACE_WRITE_SIZE_MISMATCH: 500,
  FS_CHANGED_SINCE_SHOWN: 409,

  TOOL_FAILED: 500,
  TOOL_DENIED: 500,
  MODE_REFUSED: 500,
  EDIT_NO_MATCH: 500,
  EDIT_AMBIGUOUS: 500,
  EDIT_NOT_TEXT: 500,
  READ_RANGE_PAST_END: 500,
  SEARCH_FAILED: 500,
  TOOL_INPUT_TOO_LARGE: 500,
  TOOL_CALLS_TOO_MANY: 500,
  SEARCH_UNAVAILABLE: 500,
  EXPLORE_FAILED: 500,
  EXPLORE_NO_ANSWER: 500,

  SHELL_UNAVAILABLE: 500,
  SHELL_COMMAND_INVALID: 500,
  SHELL_ARGS_TOO_MANY: 500,
  SHELL_ARG_TOO_LONG: 500,
  SHELL_ARGV_TOO_LARGE: 500,
  SHELL_ARG_NUL: 500,
  SHELL_ARG_PROTECTED: 500,
  SHELL_ARG_UNRESOLVABLE: 500,
  SHELL_CWD_MISSING: 500,
  SHELL_CWD_NOT_DIRECTORY: 500,
  SHELL_CWD_PROTECTED: 500,
  SHELL_CWD_OTHER_WORKSPACE: 500,
  SHELL_CWD_OUTSIDE_WORKSPACE: 500,
  SHELL_HOST_REFUSED: 500,
  SHELL_ABORTED: 500,
  MODE_READ_ONLY: 500,

  COMMAND_NAME_REFUSED: 500,
  COMMAND_ARGV_REFUSED: 500,
  COMMAND_CWD_REFUSED: 500,
  COMMAND_ROOT_REFUSED: 500,
  COMMAND_SCRATCH_REFUSED: 500,
  COMMAND_DUPLICATE_ID: 500,
  COMMAND_QUEUE_FULL: 500,
  COMMAND_SHELL_UNAVAILABLE: 500,
  COMMAND_SANDBOX_FAILED: 500,
  COMMAND_SPAWN_FAILED: 500,
  COMMAND_POLICY_DENIED: 500,
  COMMAND_POLICY_UNAPPROVED: 500,

  TRANSPORT_OP_MISMATCH: 500,
  TRANSPORT_URL_NOT_CANONICAL: 500,
  TRANSPORT_URL_USERINFO: 500,
  TRANSPORT_URL_SCHEME: 500,
  TRANSPORT_ORIGIN_NOT_GRANTED: 500,
  TRANSPORT_ASSET_NOT_HTTPS: 500,
  TRANSPORT_ASSET_CREDENTIALS: 500,
  TRANSPORT_METHOD: 500,
  TRANSPORT_BODY_NOT_ALLOWED: 500,
  TRANSPORT_HEADER_FORBIDDEN: 500,
  TRANSPORT_HEADERS_TOO_LARGE: 500,
  TRANSPORT_TOO_MANY_REQUESTS: 500,
  TRANSPORT_BODY_TOO_LARGE: 500,
  TRANSPORT_CONTENT_LENGTH_MISMATCH: 500,
  TRANSPORT_TOO_MANY_REDIRECTS: 500,
  TRANSPORT_REDIRECT_INVALID: 500,
  TRANSPORT_REDIRECT_DOWNGRADE: 500,
  TRANSPORT_REDIRECT_CREDENTIALS: 500,
  TRANSPORT_REDIRECT_NOT_GRANTED: 500,
  TRANSPORT_REDIRECT_BODY: 500,
  TRANSPORT_RESPONSE_HEADERS_TOO_LARGE: 500,
  TRANSPORT_RESPONSE_TOO_LARGE: 500,
  EGRESS_SECRET: 500,
  EGRESS_GUARD_UNAVAILABLE: 500,
  UPSTREAM_CONNECT_TIMEOUT: 500,
  UPSTREAM_HEADERS_TIMEOUT: 500,
  UPSTREAM_BODY_TIMEOUT: 500,
  UPSTREAM_HEADERS_OVERFLOW: 500,
  UPSTREAM_CONNECTION_REFUSED: 500,
  UPSTREAM_CONNECTION_RESET: 500,
  UPSTREAM_DNS: 500,
  UPSTREAM_TLS: 500,
  UPSTREAM_FAILED: 500,
  TRANSPORT_URL_TOO_LONG: 500,
  TRANSPORT_NO_GRANT: 500,
  TRANSPORT_CANCELLED: 500,
  AMBIENT_FETCH_DISABLED: 500,

  GRANT_UNKNOWN: 500,
  GRANT_REVOKED: 500,
  GRANT_LIMIT: 500,
  GRANT_DECLINED: 500,

  /** The write route: the host refused the write by a policy rule. */
  POLICY_DENIED: 403,
  /** The write route: a policy `ask` the person did not approve at the host. */
  POLICY_UNAPPROVED: 403,
  POLICY_PROJECT_UNKNOWN: 400,
  POLICY_RULE_INVALID: 400,
  POLICY_RULE_EXISTS: 400,
  POLICY_RULE_BUILTIN: 400,
  POLICY_TOO_MANY_RULES: 400,
  POLICY_FILE_INVALID: 400,
  POLICY_ALWAYS_ALLOW_UNAVAILABLE: 400,

  PRIVATE_FILE_UNREADABLE: 400,
  PRIVATE_FILE_SYMLINK: 400,
  PRIVATE_FILE_OWNER: 400,
  PRIVATE_FILE_NOT_REGULAR: 400,
  PRIVATE_FILE_PERMISSIONS: 400,
  PRIVATE_FILE_TOO_LARGE: 400,

  IPC_CHANNEL: 404,
  IPC_METHOD: 405,
  IPC_SESSION: 403,
  IPC_ORIGIN: 403,
  IPC_REFERER: 403,
  IPC_PAGE: 403,
  IPC_PAGE_KEY: 403,
  IPC_BODY_TOO_LARGE: 413,
  IPC_BODY: 400,
  IPC_FAILED: 500,
  SIDECAR_UNAVAILABLE: 503,
  WORKSPACE_PATH: 400,

  CONSENT_NOBODY: 503,
  CONSENT_ORIGIN: 403,
  WORKSPACE_DECLINED: 403,
  WORKSPACE_REFUSED: 403,
  DECLINED_ON_PAGE: 403,
  DECLINED_IN_TERMINAL: 403,

  CALLBACK_PEER: 403,
  CALLBACK_TARGET_TOO_LONG: 414,
  CALLBACK_HOST: 400,
  CALLBACK_METHOD: 405,
  CALLBACK_BODY: 400,
  CALLBACK_PATH: 404,
  CALLBACK_PARAMS: 400,
  CALLBACK_DUPLICATE: 400,
  CALLBACK_STATE: 400,
  CALLBACK_CODE: 400,
  CALLBACK_CLAIMED: 409,

  CONTROL_BAD_REQUEST: 400,
  CONTROL_REQUEST_TOO_LARGE: 413,
  CONTROL_FAILED: 500,
  CONTROL_BAD_ANSWER: 502,
  CONTROL_TIMEOUT: 503,
  EXPORT_TOO_LARGE: 413,
  UNDO_NO_SESSION: 404,
  UNDO_NO_RUN: 404,

  SANDBOX_POLICY_INVALID: 500,
  SANDBOX_POLICY_BROAD_DOMAIN: 500,
  SANDBOX_POLICY_LOCAL_ACCESS: 500,
  SANDBOX_POLICY_FILESYSTEM_DISABLED: 500,
  SANDBOX_POLICY_BROAD_WRITE_ROOT: 500,
  SANDBOX_POLICY_SECRET_NOT_DENIED: 500,
  SANDBOX_POLICY_HOME_READABLE: 500,

  HOME_IN_USE: 409,
  HOME_LOCK_FAILED: 500,
  HOME_LOCK_CORRUPT: 500,
  HOME_EMPTY: 400,
  HOME_NOT_A_DIRECTORY: 400,
  HOME_NOT_BASTION: 400,
  FILE_EDIT_BUSY: 409,
  USERDATA_HOST_DIR_INVALID: 500,
  HOST_TEMP_CLAIMED: 500,
  HOST_TEMP_UNSAFE: 500,
  HOST_AUDIT_UNREADABLE: 500,
  LISTEN_FAILED: 500,
  UI_NOT_BUILT: 500,
  CSP_VALUE: 500,
  IPC_DUPLICATE: 500,
  OAUTH_CONFIG: 500,
  SANDBOX_INIT: 500,
  SANDBOX_WRAP: 500,
  SANDBOX_ENV: 500,
  SIDECAR_SPAWN: 503,
  SIDECAR_STOPPED: 503,
  SIDECAR_NOT_READY: 503,
  SIDECAR_RESPAWN_FAILED: 503,
  DAEMON_UNREACHABLE: 502,
  DAEMON_RESPONSE: 502,
  DAEMON_RESPONSE_TOO_LARGE: 502,
  DAEMON_EVENT_TOO_LARGE: 502,
  DAEMON_EVENT_INVALID: 502,

  OAUTH_UNAVAILABLE: 503,
  OAUTH_HOST_ONLY: 403,
  OAUTH_BAD_REQUEST: 400,
  OAUTH_ATTEMPT: 404,
  OAUTH_STATE: 400,
  OAUTH_TIMEOUT: 410,
  OAUTH_CANCELLED: 409,
  OAUTH_DENIED: 403,
  OAUTH_CALLBACK_PORT: 503,
  OAUTH_AUTHORIZATION_URL: 502,
  OAUTH_EXCHANGE: 502,
  OAUTH_REFRESH: 403,
  OAUTH_SIGNED_OUT: 409,
  OAUTH_SUPERSEDED: 409,
  PROVIDER_ENTITLEMENT: 403,
  PROVIDER_RATE_LIMIT: 429,
  PROVIDER_MODEL: 400,
  PROVIDER_DESTINATION: 400,

  ENDPOINT_URL_INVALID: 400,
  ENDPOINT_URL_SCHEME: 400,
  ENDPOINT_URL_USERINFO: 400,
  ENDPOINT_URL_QUERY: 400,
  ENDPOINT_HOST_INELIGIBLE: 400,
  ENDPOINT_BAD_REQUEST: 400,
  ENDPOINT_BAD_CONTEXT_WINDOW: 400,
  ENDPOINT_UNKNOWN: 404,
  ENDPOINT_LIMIT: 400,
  ENDPOINT_NOT_GRANTED: 403,
  ENDPOINT_KEY_UNREADABLE: 500,
  ENDPOINT_PROBE_STATUS: 502,
  ENDPOINT_PROBE_FORMAT: 502,
  ENDPOINT_UNREACHABLE: 502,

  SECRETS_BAD_REQUEST: 400,
  SECRETS_PROVIDER_UNKNOWN: 404,
  SECRETS_STORE_FAILED: 500,
  SECRETS_FILE_SYMLINK: 500,
  SECRETS_FILE_UNREADABLE: 500,
  SECRETS_FILE_NOT_REGULAR: 500,
  SECRETS_FILE_OWNER: 500,
  SECRETS_FILE_PERMISSIONS: 409,
  SECRETS_FILE_TOO_LARGE: 500,
  SECRETS_FILE_CORRUPT: 409,

  MCP_UNAVAILABLE: 500,
  MCP_SERVER_UNKNOWN: 500,
  MCP_SERVER_FAILED: 500,
  MCP_TOOL_UNKNOWN: 500,
  MCP_ARGUMENTS_INVALID: 500,
  MCP_CALL_TIMEOUT: 500,
  MCP_CALL_FAILED: 500,
  MCP_POLICY_DENIED: 500,
  MCP_POLICY_UNAPPROVED: 500,
  MCP_BUSY: 500,
  MCP_DUPLICATE_ID: 500,
  MCP_WORKSPACE_REFUSED: 500,
  MCP_SERVER_INVALID: 400,
  MCP_SERVER_EXISTS: 409,
  MCP_SERVER_NOT_FOUND: 404,
  MCP_TOO_MANY_SERVERS: 400,
  MCP_CONFIG_INVALID: 409,
  MCP_PROMPT_UNKNOWN: 404,
  MCP_PROMPT_ARGUMENTS_INVALID: 400,
  MCP_PROMPT_TOO_LARGE: 413,
  MCP_RESOURCE_UNKNOWN: 404,
  MCP_TEMPLATE_VALUES_INVALID: 400,
  MCP_RESOURCE_NOT_TEXT: 415,
  MCP_RESOURCE_TOO_LARGE: 413,
  MCP_READ_FAILED: 502,
};

/** Whether an untyped code (a HostError's, a peer's) is one of the wire codes. */
export function isWireErrorCode(code: string): code is WireErrorCode {
  return Object.hasOwn(WIRE_ERROR_STATUS, code);
}

/**
 * Tool result codes of a call that ran and failed on what it met (a file not there, an edit's
 * text not in the file, a full disk): the UI, the CLI and the demo model say "failed". Every other
 * code of a tool result is a refusal, a call Bastion, the host or a rule would not run.
 */
const TOOL_FAILURE_CODES: ReadonlySet<string> = new Set<DaemonErrorCode>([
  'TOOL_FAILED',
  'FS_NOT_FOUND',
  'FS_NOT_A_FILE',
  'FS_NOT_A_DIRECTORY',
  'FS_DISK_FULL',
  'FS_NAME_TOO_LONG',
  'FS_ACCESS_DENIED',
  'FS_READ_ONLY',
  'STORAGE_FULL',
  'EDIT_NO_MATCH',
  'EDIT_AMBIGUOUS',
]);

/** Whether a tool result's error code says the call failed rather than was refused (TOOL_FAILURE_CODES). */
export function isToolFailureCode(code: unknown): boolean {
  return typeof code === 'string' && TOOL_FAILURE_CODES.has(code);
}
