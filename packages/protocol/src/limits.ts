/**
 * Every bound Bastion enforces, in one place. A bound that is not here is a bug:
 * reviewers look for literals in checks and move them here.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

/** Channel v1 (host ↔ sidecar over stdin/stdout). */
export const CHANNEL_FRAME_HEADER_BYTES = 4;
/** Largest JSON payload of one frame; larger frames are a protocol error, never buffered. */
export const CHANNEL_MAX_FRAME_BYTES = 256 * KiB;
/** Largest decoded body chunk carried in one frame (base64 expands it by 4/3, still under the frame bound). */
export const CHANNEL_MAX_BODY_CHUNK_BYTES = 64 * KiB;
/**
 * A received body part is passed on as a view of the bytes read only when it is at least 1/this of
 * the buffer the view keeps alive; smaller parts are copied. Body bytes held anywhere therefore
 * retain at most this multiple of their own size, whatever the peer's framing.
 */
export const CHANNEL_MAX_BODY_VIEW_RETENTION = 4;
/**
 * Body frame headers (kind and id) each end of the channel remembers as already checked against
 * its schema, so a body's later chunks skip the schema; past this many the memory starts over.
 */
export const CHANNEL_CHECKED_BODY_HEADERS = 64;
/**
 * Where an encoder writes its body chunk headers (length prefix, kind, an id of at most 128
 * bytes), one after another: room for about a thousand; a full slab is replaced, never rewritten.
 */
export const CHANNEL_HEADER_SLAB_BYTES = 16 * KiB;
/** Longest string field in a frame that is not a body chunk (ids, urls, header values are bounded separately). */
export const CHANNEL_MAX_ID_CHARS = 128;
/** Longest per-spawn password (and host key) a frame or host IPC answer carries; the host makes 43-character ones. */
export const CHANNEL_MAX_SECRET_CHARS = 512;
/** Longest origin (scheme, host, port) a frame carries: a grant's origin, an allowed origin. */
export const CHANNEL_MAX_ORIGIN_CHARS = 2 * KiB;
/** Origins the daemon's perimeter allowlists (the UI origin, and the few a test or launcher adds). */
export const CHANNEL_MAX_ALLOWED_ORIGINS = 8;
/** Workspaces a bootstrap frame may name (the ones granted on the host's command line). */
export const CHANNEL_MAX_BOOTSTRAP_WORKSPACES = 64;
/** Longest platform name in the capabilities (`linux`, `darwin`, `win32`). */
export const CHANNEL_MAX_PLATFORM_CHARS = 32;
/** Longest reason the capabilities give for a reduced posture (a banner line naming missing packages). */
export const CHANNEL_MAX_REASON_CHARS = 512;
/** Highest TCP port number: a port in a frame or host IPC answer is 1 to this. */
export const MAX_TCP_PORT = 65_535;

/** Sidecar lifecycle. */
/** Per-spawn daemon password: 32 random bytes, base64url. */
export const SIDECAR_PASSWORD_BYTES = 32;
/** The daemon refuses a bootstrap password shorter than this. */
export const SIDECAR_MIN_PASSWORD_CHARS = 16;
/** How long the host waits for the sidecar's readiness attestation. */
export const SIDECAR_READY_TIMEOUT_MS = 15_000;
/** Restart backoff: first delay, doubling up to the cap. */
export const SIDECAR_RESTART_BACKOFF_INITIAL_MS = 250;
export const SIDECAR_RESTART_BACKOFF_MAX_MS = 10_000;
/** A sidecar that stayed up this long after readiness resets the backoff. */
export const SIDECAR_STABLE_AFTER_MS = 10_000;
/** Longest stderr line the host reads from the sidecar as a log record; a longer line is dropped as it arrives, never buffered whole. */
export const SIDECAR_LOG_MAX_LINE_BYTES = 8 * KiB;
/** After `shutdown`, how long the host waits before SIGKILL. */
export const SIDECAR_SHUTDOWN_GRACE_MS = 2_000;
/**
 * The sidecar's V8 old generation starts at this size (MiB): the headroom that keeps streamed
 * provider bodies from pacing full collections, fixed instead of a multiple of the live heap, so
 * the sidecar's RSS stays put over a long session (sidecar-launcher.ts says what was measured).
 */
export const SIDECAR_INITIAL_OLD_SPACE_MIB = 64;
/**
 * Consecutive failed respawns (the launcher or the spawn itself failed), each after the restart
 * backoff, before the supervisor gives up: every waiter, and every later daemon request, then
 * gets SIDECAR_RESPAWN_FAILED instead of waiting for a sidecar that will not come.
 */
export const SIDECAR_RESPAWN_MAX_ATTEMPTS = 5;

/** Daemon socket host. */
/** Accepted sockets waiting for transfer; beyond this they are closed. */
export const SOCKET_HOST_MAX_PENDING = 64;

/** Daemon HTTP perimeter. */
/** Longest Authorization header the perimeter will look at. */
export const PERIMETER_MAX_AUTHORIZATION_CHARS = 1_024;
/** Longest Referer / Origin header the perimeter will parse. */
export const PERIMETER_MAX_URL_HEADER_CHARS = 4 * KiB;
/** Largest JSON request body a daemon route accepts (routes may set lower bounds; `POST /agent/run`: AGENT_RUN_MAX_BODY_BYTES). */
export const DAEMON_MAX_JSON_BODY_BYTES = 1 * MiB;
/** Idle socket timeout on the daemon's HTTP server (slow-loris defence). */
export const DAEMON_HEADERS_TIMEOUT_MS = 10_000;
export const DAEMON_REQUEST_TIMEOUT_MS = 30_000;
export const DAEMON_KEEP_ALIVE_TIMEOUT_MS = 5_000;
/** How often the daemon checks connections against the headers/request timeouts. */
export const DAEMON_CONNECTIONS_CHECK_INTERVAL_MS = 1_000;
export const DAEMON_MAX_HEADER_BYTES = 16 * KiB;

/** Logging. */
/** Longest string value a log field may carry; longer values are cut. */
export const LOG_MAX_FIELD_CHARS = 128;

/** Host-routed provider transport (frames `request.*`, `response.*`, `grant.*`). */
export const TRANSPORT_MAX_URL_CHARS = 32 * KiB;
export const TRANSPORT_MAX_HEADERS = 128;
export const TRANSPORT_MAX_HEADER_BYTES_TOTAL = 64 * KiB;
export const TRANSPORT_MAX_REQUEST_BODY_BYTES = 32 * MiB;
export const TRANSPORT_MAX_RESPONSE_BODY_BYTES = 512 * MiB;
/** Largest credit the sidecar may grant in one `response.credit` frame. */
export const TRANSPORT_MAX_CREDIT_BYTES = 16 * MiB;
export const TRANSPORT_MAX_CONCURRENT_REQUESTS = 32;
export const TRANSPORT_MAX_REDIRECTS = 5;
export const TRANSPORT_MAX_GRANTS = 64;
/** The sidecar must acknowledge a `grant.update` within this time, or the host restarts it. */
export const TRANSPORT_GRANT_ACK_TIMEOUT_MS = 5_000;
/**
 * Response bytes the sidecar lets the host send ahead of its reader. The sidecar grants this much
 * on `response.start` and tops it up as its reader consumes, so at most this much is queued there.
 * The host's event loop reads up to 2 MiB from an upstream socket in one turn (32 reads of 64 KiB)
 * before it reads the sidecar's credit, and the sidecar's own pauses (a collection) add to that:
 * per 100 MiB the host ran out of credit and paused the body about 46 times at 2 MiB, 20 at 4 MiB,
 * and once at 8 MiB. A sidecar holds this much of a response only when its reader lags.
 */
export const TRANSPORT_RESPONSE_WINDOW_BYTES = 8 * MiB;
/** Upload bytes the host lets the sidecar send ahead of the upstream socket (`request.credit`). */
export const TRANSPORT_UPLOAD_WINDOW_BYTES = 1 * MiB;
/** Ids of requests the host ended on its own, remembered so the sidecar's in-flight frames for them are dropped, not fatal. */
export const TRANSPORT_MAX_ENDED_IDS = 1_024;
/** Upstream connect, first-byte and idle-body timeouts (models can think for minutes before the first token). */
export const TRANSPORT_CONNECT_TIMEOUT_MS = 30_000;
export const TRANSPORT_HEADERS_TIMEOUT_MS = 300_000;
export const TRANSPORT_BODY_IDLE_TIMEOUT_MS = 300_000;
/** Longest secret kind a `response.error` frame names (its code is one of TRANSPORT_ERROR_CODES). */
export const TRANSPORT_MAX_ERROR_KIND_CHARS = 64;
/** Longest single header value carried in a frame. */
export const TRANSPORT_MAX_HEADER_VALUE_BYTES = 16 * KiB;
/** Longest header name carried in a frame (RFC 9110 sets none; real names are a few dozen characters). */
export const TRANSPORT_MAX_HEADER_NAME_CHARS = 256;
/** Longest request method a `request.start` frame carries (`OPTIONS` is the longest standard one). */
export const TRANSPORT_MAX_METHOD_CHARS = 16;
/** The range of a `response.start` status: the three-digit codes of RFC 9110. */
export const TRANSPORT_MIN_STATUS = 100;
export const TRANSPORT_MAX_STATUS = 599;

/** BYOK secrets (`<userData>/auth.json`) and custom endpoints (`<userData>/endpoints.json`). */
/** auth.json / endpoints.json larger than this are refused on read (a sign of tampering, not of use). */
export const SECRETS_MAX_FILE_BYTES = 1 * MiB;
/** Longest API key `/secrets/set` accepts. */
export const SECRETS_MAX_KEY_CHARS = 4 * KiB;
/** Custom endpoints one user may define. */
export const ENDPOINTS_MAX_COUNT = 32;
/** Longest custom endpoint id (its provider id; `--endpoint URL` derives one from the URL within it). */
export const ENDPOINT_ID_MAX_CHARS = 32;
/** Longest endpoint base URL (it is an origin plus a short path such as `/v1`). */
export const ENDPOINTS_MAX_URL_CHARS = 2 * KiB;
/** Models one endpoint definition may list, and models a probe reports. */
export const ENDPOINTS_MAX_MODELS = 256;
/** Largest `/models` answer a probe reads. */
export const ENDPOINTS_MAX_PROBE_BYTES = 1 * MiB;

/** run_command (frames `command.*`). */
export const COMMAND_MAX_ARGS = 256;
export const COMMAND_MAX_ARG_BYTES = 32 * KiB;
/**
 * All of argv together. 256 × 32 KiB would not fit one channel frame, so the sum is bounded
 * below the frame size; the daemon refuses longer argv before sending.
 */
export const COMMAND_MAX_ARGV_TOTAL_BYTES = 192 * KiB;
export const COMMAND_MAX_PATH_CHARS = 4 * KiB;
export const COMMAND_DEFAULT_TIMEOUT_MS = 120_000;
export const COMMAND_MAX_TIMEOUT_MS = 600_000;
/** Output is streamed in chunks of at most this size... */
export const COMMAND_OUTPUT_CHUNK_BYTES = 64 * KiB;
/** ...up to this total, after which it is cut and flagged `truncated`. */
export const COMMAND_MAX_OUTPUT_BYTES = 1 * MiB;
/** A running command's output goes to the UI as one event per this long... */
export const COMMAND_OUTPUT_DELTA_MS = 100;
/** ...or sooner, once this many characters of it have gathered. */
export const COMMAND_OUTPUT_DELTA_MAX_CHARS = 16 * KiB;
export const COMMAND_MAX_CONCURRENT = 4;
export const COMMAND_MAX_QUEUED = 32;
/** Between SIGTERM and SIGKILL of a command's process group. */
export const COMMAND_KILL_GRACE_MS = 2_000;
/** How often a stopped command's recorded tree is looked at until every process of it has died (at most COMMAND_KILL_GRACE_MS). */
export const COMMAND_TREE_EXIT_POLL_MS = 2;
/** Longest git user.name / user.email the host passes to commands (HOME's gitconfig is unreadable to them). */
export const GIT_IDENTITY_MAX_CHARS = 256;
/** How long the host waits for `git config --global --get` when it reads that identity. */
export const GIT_IDENTITY_READ_TIMEOUT_MS = 5_000;

/** Workspaces and file tools (daemon `src/workspaces/`, `src/tools/`). */
/** Longest workspace-relative path a route or tool accepts. */
export const WORKSPACE_MAX_PATH_CHARS = 4 * KiB;
/** Reads return at most this many bytes of a file and say `truncated` beyond it. */
export const WORKSPACE_MAX_READ_BYTES = 1 * MiB;
/**
 * How far into a file `search` looks and read_file's line ranges reach: a larger file is skipped
 * by search, and its lines beyond this are out of read_file's reach (it says so). Bounds the
 * daemon's scan of one file for its line offsets.
 */
export const WORKSPACE_MAX_SCAN_BYTES = 64 * MiB;
/** The chunk the line scan of read_file's ranges reads at a time. */
export const READ_FILE_SCAN_CHUNK_BYTES = 256 * KiB;
/** Largest file content one write accepts (UTF-8 bytes); kept under the daemon's JSON body bound. */
export const WORKSPACE_MAX_WRITE_BYTES = 768 * KiB;
/** A directory listing stops after this many entries and says `truncated`. */
export const WORKSPACE_MAX_DIR_ENTRIES = 1_000;
/** A search by name (POST /workspaces/find, the message box's `@`) walks at most this many directories, shallow first. */
export const WORKSPACE_FIND_MAX_DIRECTORIES = 2_000;
/** ...and answers at most this many paths, the best by name. */
export const WORKSPACE_FIND_MAX_RESULTS = 50;
/** ...for a query of at most this many characters. */
export const WORKSPACE_FIND_MAX_QUERY_CHARS = 200;
/** ...keeping at most this many matches while it walks, before the best are chosen. */
export const WORKSPACE_FIND_MAX_CANDIDATES = 1_000;
/** ...and listing this many folders between two yields to the daemon's event loop. */
export const WORKSPACE_FIND_FOLDERS_PER_TURN = 64;
/**
 * Workspace writes one sidecar may have at the host at once (host workspaces/workspace-writes.ts):
 * each holds up to WORKSPACE_MAX_WRITE_BYTES in the host's memory until its last chunk arrives.
 */
export const WORKSPACE_WRITE_MAX_PENDING = 8;
/** `search` (ripgrep): longest pattern, most matches reported, output read, and wall time. */
export const SEARCH_MAX_PATTERN_CHARS = 1 * KiB;
export const SEARCH_MAX_MATCHES = 200;
export const SEARCH_MAX_OUTPUT_BYTES = 512 * KiB;
export const SEARCH_TIMEOUT_MS = 15_000;
/** Characters of a file glob (`search`'s `glob`, `find_files`' `pattern`). */
export const SEARCH_MAX_GLOB_CHARS = 256;
/** `find_files`: paths listed at most. */
export const FIND_FILES_MAX_PATHS = 500;
/** `update_plan`: steps in the agent's plan, and characters of one step. */
export const PLAN_MAX_STEPS = 30;
export const PLAN_MAX_STEP_CHARS = 300;
/** `explore`: characters of the task handed to the explorer, and of its answer the agent is given (cut beyond). */
export const EXPLORE_TASK_MAX_CHARS = 8 * KiB;
export const EXPLORE_ANSWER_MAX_CHARS = 16 * KiB;
/** `explore`: model steps an explorer takes at most; the last one must answer, without tools. */
export const EXPLORE_MAX_STEPS = 16;
/** `explore`: explorers of one run working at once; further explore calls of the step wait their turn. */
export const EXPLORE_MAX_CONCURRENT = 4;
/**
 * `explore`: once what its next step would send reaches this fraction of the model's window, the
 * explorer answers with what it has found; each tool result it sees is cut to
 * EXPLORE_TOOL_OUTPUT_WINDOW_FRACTION of the window (at most TOOL_MODEL_OUTPUT_MAX_CHARS).
 */
export const EXPLORE_ANSWER_AT_FRACTION = 0.5;
export const EXPLORE_TOOL_OUTPUT_WINDOW_FRACTION = 0.05;
/** Longest single matched line a search result carries (longer lines are cut). */
export const SEARCH_MAX_LINE_CHARS = 512;
/** Characters of ripgrep's error output read (its refusal of a pattern or glob is a few lines). */
export const SEARCH_STDERR_KEPT_CHARS = 4 * KiB;
/** Longest reason taken from ripgrep's error output that a refusal passes to the model. */
export const SEARCH_INPUT_ERROR_MAX_CHARS = 200;

/** Git configuration read to protect what it points at (hooks, includes) from the agent's writes. */
/** Include nesting followed, as git's own limit (`MAX_INCLUDE_DEPTH`). */
export const GIT_CONFIG_MAX_INCLUDE_DEPTH = 10;
/** A config file longer than this is not parsed (its hooks path is missed; config is write-protected anyway). */
export const GIT_CONFIG_MAX_FILE_CHARS = 1 * MiB;
/**
 * Most directory entries the host reads per scan while it looks for every repository, submodule
 * and linked worktree below a workspace root, at any depth (twice a command: before it, to protect
 * them, and after it, for the ones it created). Measured on a loaded 2-core machine: about 10 µs an
 * entry, so the bound costs at most about a second; a typical workspace has a few thousand (a
 * package tree counts only its packages: three lookups each, and its scopes' listings). A workspace
 * beyond it fails closed: the command runs with the workspace read-only, and its result says why.
 */
export const GIT_REPOSITORY_SCAN_MAX_ENTRIES = 100_000;
/**
 * Workspace roots whose directory listings the command executor keeps between its git repository
 * scans (directory-listing-cache.ts; the least recently scanned root goes first). Each root's are
 * bounded by the scan's own bound above.
 */
export const GIT_LISTING_CACHE_MAX_ROOTS = 8;
/**
 * How long the host serves a workspace's protected link targets (host protected-link-targets.ts)
 * again without a scan, while no command has started or ended since: only a command or the user
 * makes a link there, and this bounds how long one the user makes goes unseen by the file tools.
 */
export const PROTECTED_LINK_SCAN_MAX_AGE_MS = 2_000;
/**
 * A repository a command created is neutralised after it (git-created-repositories.ts): its
 * originals are kept in `<userData>/quarantine/`. A kept file larger than this is removed without
 * a copy (the result says so).
 */
export const GIT_QUARANTINE_MAX_FILE_BYTES = 1 * MiB;
/** Most files one command's quarantine keeps; the rest are removed without a copy (the result says so). */
export const GIT_QUARANTINE_MAX_FILES_PER_COMMAND = 64;
/** Most command folders `<userData>/quarantine/` holds; beyond it nothing more is kept (never deleted by Bastion). */
export const GIT_QUARANTINE_MAX_FOLDERS = 1_000;

/**
 * How often the placeholder warden checks the absent protected paths a running command could
 * create (and moves what appeared to quarantine): the longest a created file stays in place while
 * the command runs. Polled rather than watched, so a command renaming in a tight loop costs the
 * host nothing per rename.
 */
export const WARDEN_POLL_INTERVAL_MS = 50;
/**
 * Most protected entries below a workspace root (a nested `AGENTS.md`, `.envrc`, `.vscode`… that
 * exists) one command's profile write-denies, each one a bind mount srt resolves on every wrap.
 * A workspace with more runs the command with the whole workspace read-only (fail closed), and
 * its result says why; a monorepo has a few dozen.
 */
export const NESTED_PROTECTED_MAX_DENIES = 256;
/** Most notices one `command.end` carries (what the host neutralised or flagged after the command). */
export const COMMAND_MAX_NOTICES = 16;
/** Longest notice; longer ones are cut. */
export const COMMAND_NOTICE_MAX_CHARS = 1 * KiB;
/** Longest signal name a `command.end` carries (`SIGTERM`, `SIGKILL`). */
export const COMMAND_MAX_SIGNAL_CHARS = 32;
/** Longest error code a `command.error` frame carries. */
export const COMMAND_MAX_ERROR_CODE_CHARS = 64;

/** Sessions store (`<userData>/sessions.db`) and its routes. */
/** How long a statement waits for a lock held by another connection before SQLITE_BUSY. */
export const STORE_BUSY_TIMEOUT_MS = 5_000;
/**
 * Run events are group-committed: appends within this window share one transaction, and clients
 * see them only after it commits. Bounds both the added latency and the events a crash can drop.
 */
export const STORE_GROUP_COMMIT_MS = 5;
/**
 * `bastion start` refuses a home on a disk with less free space than this (STORAGE_FULL, one line
 * naming the path) instead of starting a host whose first writes would fail: room for the storage
 * reserve (STORAGE_RESERVE_BYTES), the logs, SQLite's WAL and a run.
 */
export const STORAGE_START_MIN_FREE_BYTES = 4 * MiB;
/**
 * After a run ends, the text and reasoning deltas its assistant messages already hold are folded
 * into stored events that point at that text instead of copying it (a reply is stored once); one
 * such event covers consecutive deltas of at most this many UTF-8 bytes, so a replay of a 20 MB
 * reply still arrives in events no bigger than a socket write.
 */
export const STORE_FOLDED_DELTA_MAX_BYTES = 64 * KiB;
/**
 * A fold that freed at least this many bytes of events gives the space back at once (incremental
 * vacuum of a new database, then a WAL checkpoint that truncates the WAL file); smaller ones leave
 * it to SQLite's own checkpoints.
 */
export const STORE_FOLD_RECLAIM_MIN_BYTES = 1 * MiB;
/** The WAL file is cut back to this size after each checkpoint (SQLite's journal_size_limit). */
export const STORE_WAL_SIZE_LIMIT_BYTES = 4 * MiB;
/**
 * The sidecar keeps this much of the data disk in `<userData>/storage-reserve`. When the disk
 * fills mid-run it deletes the file, so the final `run-error STORAGE_FULL` of every run in
 * progress still commits, and takes the space back once the disk has room again. A run starts
 * only while the reserve is whole, so each one can always record how it ended.
 */
export const STORAGE_RESERVE_BYTES = 1 * MiB;
export const SESSION_MAX_TITLE_CHARS = 200;
/** Longest text `GET /sessions?search=` looks for in titles, prompts and replies. */
export const SESSION_SEARCH_MAX_CHARS = 200;
/** The sidebar's search: fewer characters (trimmed) do not search, one letter being in nearly every session. */
export const SESSION_SEARCH_MIN_CHARS = 2;
/** How long the sidebar's search waits after a key before asking, so a word typed asks once. */
export const SESSION_SEARCH_DELAY_MS = 250;
/** Sessions in each page of the sidebar's search results ("Show older matches" asks for the next). */
export const SESSION_SEARCH_PAGE_LIMIT = 50;
/** A title the daemon takes from a session's first message is cut here (a list shows less still). */
export const SESSION_AUTO_TITLE_CHARS = 80;
/** Paged listings (`GET /sessions`, `GET /sessions/:id/messages`): default and largest page. */
export const PAGE_DEFAULT_LIMIT = 50;
export const PAGE_MAX_LIMIT = 200;
/**
 * `GET /sessions/:id/events` (newest page first): largest page. A page this size folds and
 * renders within a frame budget, so a long session's newest turns paint without its history.
 */
export const EVENT_PAGE_MAX_LIMIT = 1_000;
/**
 * The desktop page asks for this many of a session's newest events when it opens (older pages,
 * EVENT_PAGE_MAX_LIMIT each, load as the reader scrolls up): more than a screen of turns, and a
 * fifth of the query, transfer and fold a full page costs before the first paint.
 */
export const UI_OPENING_EVENT_PAGE_LIMIT = 200;
/**
 * The desktop page's first render waits this long at most for the newest events it asked for
 * (packages/web/src/main.tsx): rendering the shell first would hold the main thread while the
 * request's own steps wait for it, and paint the newest messages later.
 */
export const UI_FIRST_RENDER_WAIT_MS = 250;
/** Provider and model ids as stored and routed. */
export const PROVIDER_ID_MAX_CHARS = 64;
export const MODEL_ID_MAX_CHARS = 128;
/** A provider's or model's display name in `GET /models`. */
export const MODEL_LABEL_MAX_CHARS = 200;
/** Who recorded consent to `auto` mode (a short label, e.g. `cli`, `ui`). */
export const CONSENT_BY_MAX_CHARS = 64;

/** Agent runs. */
/** Longest user message (UTF-16 code units) `POST /agent/run` accepts; longer is 413. */
export const AGENT_MAX_MESSAGE_CHARS = 64 * KiB;
/**
 * A client-chosen id (a send's `client_id`, a page's `viewer`; base64url): at least 16 characters,
 * 96 random bits, so that no two clients' ids meet by chance; the page's are 22 (16 random bytes).
 */
export const CLIENT_ID_MIN_CHARS = 16;
export const CLIENT_ID_MAX_CHARS = 64;
/**
 * How many of a session's latest sends' ids the daemon keeps to answer a repeat with; older ones
 * are dropped as new ones come (a repeat comes right after its send: the bridge asks once more).
 */
export const AGENT_SEND_IDS_KEPT_PER_SESSION = 64;
/**
 * A session New session made (`provisional`) and never touched — no message, run, draft, image,
 * queued item or chosen setting — is removed once no page has streamed it and no `bastion chat`
 * has taken it for this long: longer than a reload, a page's reconnect (5 s at most) or a sidecar
 * restart take, so a session something shows is never removed.
 */
export const UNTOUCHED_SESSION_GRACE_MS = 20_000;
/** How often the daemon looks for such sessions. */
export const UNTOUCHED_SESSION_SWEEP_MS = 5_000;
/** Images one message may carry (`POST /agent/run`'s `images`). */
export const AGENT_MAX_IMAGES = 4;
/**
 * Largest image, decoded (bytes): 3.75 MiB, so its base64 stays within the 5 MiB a provider takes
 * for one image (Anthropic's bound; OpenAI's is larger).
 */
export const IMAGE_MAX_BYTES = 3_932_160;
/** Longest name an attached image is sent with (UTF-16 units; a file system's own bound). */
export const IMAGE_NAME_MAX_CHARS = 255;
/** Largest `POST /agent/run` body: a full-length message with AGENT_MAX_IMAGES images in base64. */
export const AGENT_RUN_MAX_BODY_BYTES = 24 * MiB;
/**
 * Image bytes, decoded, that one model call is sent: the newest images of the conversation up to
 * this, older ones named in words instead, so a request stays under TRANSPORT_MAX_REQUEST_BODY_BYTES
 * (16 MiB of base64 beside the text).
 */
export const IMAGE_CONTEXT_MAX_BYTES = 12 * MiB;
/**
 * Tokens an image is counted as when the context's size is estimated (a provider bills a large
 * image at about this many: Anthropic about width × height / 750, capped near 1 600).
 */
export const IMAGE_CONTEXT_TOKENS = 1_600;
/** Attached images the web page keeps fetched at once (each up to IMAGE_MAX_BYTES, a third more in base64). */
export const SESSION_IMAGE_CACHE_MAX_ENTRIES = 24;
/** Saved prompts (`<home>/prompts/*.md`, `GET /prompts`): files read, and one file's largest size. */
export const PROMPTS_MAX_COUNT = 200;
export const PROMPT_MAX_BYTES = 16 * KiB;
/** Longest description a saved prompt is listed with (characters). */
export const PROMPT_DESCRIPTION_MAX_CHARS = 120;
/** Model steps (each may call tools) in one run before it stops. */
export const AGENT_MAX_STEPS = 24;
/**
 * Largest input one tool call of a model's reply may have: the UTF-8 bytes of the JSON the model
 * sent. A larger call is not run, a small marker is stored and sent back to the model in place of
 * its input, and its result is TOOL_INPUT_TOO_LARGE. A write_file of WORKSPACE_MAX_WRITE_BYTES of
 * source fits (JSON escaping grows this repository's files by 3 % on average, 11 % at most), as
 * does an edit_file swapping two such halves; a call this size still makes a tool-call event under
 * DAEMON_EVENT_MAX_CHARS. A call streamed past it stops the reply being read.
 */
export const MODEL_MAX_TOOL_INPUT_BYTES = 2 * MiB;
/**
 * Tool inputs one model step may have in all; a call that would take its step past it is refused
 * as one over MODEL_MAX_TOOL_INPUT_BYTES, and a reply streaming more stops being read. Keeps a
 * step's stored inputs, sent with every later step, well under TRANSPORT_MAX_REQUEST_BODY_BYTES.
 */
export const MODEL_MAX_STEP_TOOL_INPUT_BYTES = 8 * MiB;
/**
 * Tool calls one model step runs at most; the calls after them get TOOL_CALLS_TOO_MANY and their
 * inputs become markers. No provider documents a bound on the calls of one reply (parallel calls
 * are only on or off; OpenAI takes 128 tools in a request); a real model's come to a handful.
 */
export const MODEL_MAX_TOOL_CALLS_PER_STEP = 64;
/**
 * Most of a model's reply the sidecar takes in before the AI SDK can parse any of it: one event of
 * a streamed reply (the bytes since its last blank line), or the whole body of a reply that is not
 * an event stream (an error's JSON, which the SDK reads whole). Past it the reply stops being read
 * and the run ends with PROVIDER_REPLY_TOO_LARGE. The largest real event is OpenAI's
 * `response.completed`, which repeats the step's whole output: up to MODEL_MAX_STEP_TOOL_INPUT_BYTES
 * of tool inputs (a reply streaming more stops being read before it comes), each input byte at
 * most 3 once escaped again inside the event's JSON (a 4-byte character sent as `\uD83D\uDE00`),
 * 24 MiB, plus the step's text and reasoning, bounded by its output tokens. Without it one event
 * could grow the sidecar up to TRANSPORT_MAX_RESPONSE_BODY_BYTES.
 */
export const MODEL_MAX_UNPARSED_REPLY_BYTES = 32 * MiB;
/** Runs executing at once across all sessions; beyond this `POST /agent/run` answers 429. */
export const AGENT_MAX_CONCURRENT_RUNS = 8;
/** Text a tool hands back to the model is cut beyond this many characters. */
export const TOOL_MAX_OUTPUT_CHARS = 256 * KiB;
/**
 * Highest line number read_file's `start_line`/`end_line` accept: its ranges reach
 * WORKSPACE_MAX_SCAN_BYTES into a file, which hold at most one line more than they have bytes.
 */
export const READ_FILE_MAX_LINE = WORKSPACE_MAX_SCAN_BYTES + 1;

/** Agent event stream (`GET /agent/stream/:session_id`, server-sent events). */
/**
 * A comment line is sent this often so the daemon's 10 s idle socket timeout
 * (DAEMON_HEADERS_TIMEOUT_MS) never cuts a quiet stream.
 */
export const SSE_HEARTBEAT_MS = 5_000;
/** Persisted events read per query while replaying after `Last-Event-ID`. */
export const SSE_REPLAY_PAGE = 500;
/** Live events queued for one slow subscriber before it falls back to reading the store. */
export const SSE_MAX_QUEUED_EVENTS = 1_000;
/** Open streams on one session. */
export const SSE_MAX_SUBSCRIBERS_PER_SESSION = 16;

/** Demo model: delay between streamed words, so the demo reads like a model typing. */
export const DEMO_DELTA_INTERVAL_MS = 15;

/** Desktop web app (packages/web): what one page renders and holds. */
/** Longer agent text is shown as plain text: parsing markdown that long would stall the page. */
export const UI_MARKDOWN_MAX_CHARS = 200 * KiB;
/**
 * One markdown block (a paragraph, a list, a quote) the UI parses at most; a longer one shows as
 * plain text (one fenced code block alone, as unhighlighted code): the parser's cost grows faster
 * than the text (`*a` repeated to 100 KB held the tab 24 s).
 */
export const UI_MARKDOWN_MAX_BLOCK_CHARS = 16 * KiB;
/**
 * Characters of one reply's fenced code the UI highlights: blocks holding fenced code, counted
 * whole in order, while they fit; the code of the rest shows unhighlighted, in a monospace box.
 * Highlighting costs about 10 ms a KiB (a 190 KB block held the tab 1.8 s).
 */
export const UI_HIGHLIGHT_MAX_CHARS = 16 * KiB;
/** List and quote markers one line of a block may nest before the block shows as plain text (3 000 overflowed the stack). */
export const UI_MARKDOWN_MAX_NESTING = 32;
/** Most tokens one model step's usage may report per field (input, output, cached); a larger count, or one that is not a whole number, counts as zero. */
export const MODEL_MAX_STEP_TOKENS = 100_000_000;
/** Tool output (stdout, file content) longer than this many lines is folded until asked for. */
export const UI_TOOL_OUTPUT_FOLD_LINES = 40;
/** A notification names a run's error by its code only up to this long (a longer one is said as "the run failed"). */
export const UI_NOTIFICATION_CODE_MAX_CHARS = 48;
/** An Explore card's task longer than this many lines, or characters, shows folded to its start until opened. */
export const UI_EXPLORE_TASK_FOLD_LINES = 4;
export const UI_EXPLORE_TASK_FOLD_CHARS = 320;
/** Settings → MCP servers: a server's tools shown before "Show all" (a long list folds). */
export const UI_MCP_TOOLS_FOLDED = 6;
/** Settings → MCP servers: how soon the card asks again while a server is starting (a run may have started it). */
export const UI_MCP_STARTING_REFRESH_MS = 1_000;
/** A session's banner of servers not running shows this much of each one's error (Settings shows it whole). */
export const UI_MCP_ERROR_SHOWN_CHARS = 240;
/** A running command's card shows the last this many characters of what it has printed. */
export const UI_LIVE_OUTPUT_MAX_CHARS = 32 * KiB;
/** A diff computed in the page (for transcripts older than the tool's own diff) covers this much text at most. */
export const UI_DIFF_MAX_INPUT_CHARS = 256 * KiB;
/** Lines of a unified diff shown before the rest is folded. */
export const UI_DIFF_FOLD_LINES = 400;
/** An approval card's diff shows this many lines before "Show all": the card is a fraction of the window. */
export const UI_APPROVAL_DIFF_FOLD_LINES = 40;
/** A session's Changes view shows the diffs of its first this many files open; the rest open on a click. */
export const UI_CHANGES_OPEN_FILES = 10;
/**
 * An approval question's Allow, Deny and Always allow ignore activations for this long after the
 * question shows (or another takes its place): a click or key aimed at what was there before must
 * not answer it. The terminal's equivalent is CLI_APPROVAL_TYPE_AHEAD_DISCARD_MS.
 */
export const UI_APPROVAL_ANSWER_GUARD_MS = 400;

/**
 * How often a page asks whether Bastion still answers while it does (web/src/host-link.ts): a page
 * whose Bastion was stopped says so within this, instead of showing a sandbox that is gone.
 */
export const UI_HOST_LINK_CHECK_MS = 5_000;
/**
 * A run's model silent this long (no word, no call, while no tool of its runs) makes the activity
 * line say how long it has been: a provider that takes the request and never answers shows as such.
 */
export const UI_MODEL_SILENT_NOTICE_MS = 15_000;
/** Tallest the composer grows with multi-line input, in pixels, before it scrolls. */
export const UI_COMPOSER_MAX_HEIGHT_PX = 240;
/** Characters of a tool call's input a session's markdown export shows (its outputs stay in Bastion). */
export const EXPORT_TOOL_INPUT_CHARS = 300;
/** How long a downloaded export's object URL lives before it is revoked (the download has begun by then). */
export const UI_DOWNLOAD_URL_TTL_MS = 10_000;
/** Characters of a session's title an export's file name keeps. */
export const UI_EXPORT_FILE_NAME_CHARS = 80;
/** While a listed session has a run going, the session list is read again this often, so its mark clears when the run ends. */
export const UI_SESSION_LIST_POLL_MS = 2_000;
/** How many of a folder's entries the message box's `@` list shows at once (the rest by typing more of the name). */
export const UI_MENTION_MAX_ENTRIES = 50;
/** After this pause in typing, a name after `@` (two characters or more) is also searched for in the workspace's folders. */
export const UI_MENTION_FIND_DELAY_MS = 120;
/**
 * While the message box's `/` or `@` menu is open, how often the MCP servers' listing is read again,
 * so that a server whose list changed (relisted by the host, MCP_LIST_CHANGED_DEBOUNCE_MS) shows it there.
 */
export const UI_MCP_MENU_RELIST_MS = 1_500;

/** Host-owned confirmation page (host `src/consent/consent-page.ts`), used when no terminal is attached. */
/** Each question's token: 32 random bytes (256 bits), base64url, in the page's path. */
export const CONSENT_PAGE_TOKEN_BYTES = 32;
/** An unanswered question is a no after this long. */
export const CONSENT_PAGE_TTL_MS = 120_000;
/** Questions open at once; more are refused (answered no) until one settles. */
export const CONSENT_PAGE_MAX_PENDING = 8;
/** The page's Allow/Deny form body. */
export const CONSENT_PAGE_MAX_BODY_BYTES = 1_024;

/** Desktop UI server, launch ticket and host IPC (host `src/ui/`). */
/** Launch ticket: 32 random bytes (256 bits), base64url, in the URL `bastion start` opens. */
export const UI_LAUNCH_TICKET_BYTES = 32;
/** A launch ticket not exchanged within this time is dead. */
export const UI_LAUNCH_TICKET_TTL_MS = 60_000;
/** Outstanding (issued, not yet exchanged) tickets; the oldest is dropped beyond this. */
export const UI_MAX_LAUNCH_TICKETS = 8;
/** Host-session cookie value: 32 random bytes, base64url. */
export const UI_SESSION_TOKEN_BYTES = 32;
/** Page key bound to a host session: 32 random bytes, base64url, handed over in the launch redirect's fragment. */
export const UI_PAGE_KEY_BYTES = 32;
/** Live host sessions (browser tabs that exchanged a ticket); the oldest is dropped beyond this. */
export const UI_MAX_HOST_SESSIONS = 16;
/** CSP nonce: 16 random bytes (128 bits), fresh for every HTML response. */
export const UI_CSP_NONCE_BYTES = 16;
/** Longest request target the UI server will route. */
export const UI_MAX_URL_CHARS = 2 * KiB;
/** Largest JSON body a host IPC channel accepts. */
export const HOST_IPC_MAX_BODY_BYTES = 16 * KiB;
/** UI listener slow-loris and header-flood bounds: as the daemon's (a page or IPC call needs far less). */
export const UI_HEADERS_TIMEOUT_MS = 10_000;
/** Time to receive a whole request (headers and body); a slow handler, e.g. a consent prompt, is not cut. */
export const UI_REQUEST_TIMEOUT_MS = 30_000;
export const UI_KEEP_ALIVE_TIMEOUT_MS = 5_000;
export const UI_CONNECTIONS_CHECK_INTERVAL_MS = 1_000;
export const UI_MAX_HEADER_BYTES = 16 * KiB;

/** ChatGPT subscription OAuth (SEC-008: host `src/oauth/`, daemon `src/oauth/`). */
/** An authorization attempt (PKCE verifier, state, callback listener) lives this long. */
export const CHATGPT_OAUTH_ATTEMPT_TTL_MS = 10 * 60_000;
/** PKCE code verifier entropy (RFC 7636 asks for 32 octets). */
export const CHATGPT_OAUTH_VERIFIER_BYTES = 32;
/** `state` entropy; the issue asks for at least 24 bytes. */
export const CHATGPT_OAUTH_STATE_BYTES = 32;
/** Attempt id entropy. */
export const CHATGPT_OAUTH_ATTEMPT_ID_BYTES = 24;
/** Longest request target (path + query) the loopback callback listener reads. */
export const CHATGPT_CALLBACK_MAX_TARGET_BYTES = 8 * KiB;
/** Most query parameters a callback may carry (state, code, scope, … — a real one has about five). */
export const CHATGPT_CALLBACK_MAX_QUERY_PARAMS = 12;
/** Header bytes the callback listener's parser accepts before it answers 431. */
export const CHATGPT_CALLBACK_MAX_HEADER_BYTES = 16 * KiB;
/** A callback request must arrive whole within this time (slow-loris on the loopback port). */
export const CHATGPT_CALLBACK_REQUEST_TIMEOUT_MS = 10_000;
/** Longest authorization code / state value accepted from a callback or `/auth/chatgpt/complete`. */
export const CHATGPT_MAX_CODE_CHARS = 4 * KiB;
export const CHATGPT_MAX_STATE_CHARS = 256;
/** Longest authorization URL the daemon returns (it is built from fixed parts plus random values). */
export const CHATGPT_MAX_AUTHORIZATION_URL_CHARS = 4 * KiB;
/** Largest token-endpoint response read (code exchange and refresh). */
export const CHATGPT_TOKEN_RESPONSE_MAX_BYTES = 1 * MiB;
/** Display and account claims kept from the token response; longer values are refused, not cut. */
export const CHATGPT_MAX_ACCOUNT_ID_CHARS = 128;
export const CHATGPT_MAX_EMAIL_CHARS = 320;
export const CHATGPT_MAX_PLAN_CHARS = 64;
/** Longest OAuth endpoint URL (issuer, authorization, token, Responses) in the bootstrap frame. */
export const CHATGPT_MAX_ENDPOINT_URL_CHARS = 2 * KiB;
/** Longest OAuth client id and scope string in the bootstrap frame. */
export const CHATGPT_MAX_CLIENT_ID_CHARS = 128;
export const CHATGPT_MAX_SCOPE_CHARS = 256;
/** Longest access or refresh token stored. */
export const CHATGPT_MAX_TOKEN_CHARS = 16 * KiB;
/** An access token this close to its expiry is refreshed before use. */
export const CHATGPT_REFRESH_SKEW_MS = 60_000;

/** Outer sandbox start-up (srt initialize): attempts before failing closed, and the back-off step between them. */
export const SRT_INIT_ATTEMPTS = 3;
export const SRT_INIT_RETRY_DELAY_MS = 250;
/** Attempts at srt's wrap of one argv before the spawn fails closed (its `which` look-up has a 1 s timeout). */
export const SRT_WRAP_ATTEMPTS = 2;
/**
 * run_command wrap cache (wrap-cache.ts): wraps kept (one per distinct profile; the oldest goes
 * first), the most directories of the working directory's tree (to srt's scan depth) a kept wrap
 * may depend on (a bigger tree is wrapped in full every time: checking it would cost what the scan
 * does), and how close to the moment the disk was read a directory's change time may be before it
 * is not trusted alone (file times tick with the kernel's coarse clock; a change within the same
 * tick can leave the time as it was), so its listing is compared instead.
 */
export const WRAP_CACHE_MAX_ENTRIES = 16;
export const WRAP_CACHE_MAX_SCAN_DIRS = 2_000;
export const WRAP_CACHE_RACY_MARGIN_MS = 50;
/**
 * The longest request (the command's words, shell-quoted) handed to a pre-started sandbox
 * (prestarted-sandbox.ts): its shell reads the line a byte at a time, so a longer one is spawned
 * as ever.
 */
export const PRESTARTED_SANDBOX_MAX_REQUEST_BYTES = 16 * KiB;
/** How long a command waits for a pre-started sandbox still setting up before it spawns its own. */
export const PRESTARTED_SANDBOX_READY_WAIT_MS = 1_000;

/** Agent context (daemon `src/agent/context-compaction.ts`, `src/agent/tool-output-truncation.ts`). */
/** Context window assumed for a model Bastion has no figure for (custom endpoints may configure their own). */
export const DEFAULT_CONTEXT_WINDOW_TOKENS = 32_000;
/**
 * Anthropic's extended thinking, the tokens a session's reasoning effort lets the model think
 * (Anthropic's minimum is 1 024). Each stays under the smallest max output of the catalog's Claude
 * models (32 000 for Opus 4.1), which the budget must be below.
 */
export const ANTHROPIC_THINKING_BUDGET_TOKENS = Object.freeze({ low: 4_000, medium: 12_000, high: 24_000 });
/** Smallest and largest context window a custom endpoint may declare (`context_window`, tokens). */
export const CONTEXT_WINDOW_MIN_TOKENS = 1_024;
export const CONTEXT_WINDOW_MAX_TOKENS = 10_000_000;
/**
 * Before a step whose context would reach this fraction of the model's window, older turns are
 * compacted into a summary; the rest of the window is left for the step's answer and tool results.
 */
export const CONTEXT_COMPACT_THRESHOLD = 0.8;
/** After a compaction the recent turns kept whole fill at most this fraction of the window, and this many messages. */
export const CONTEXT_KEEP_RECENT_FRACTION = 0.3;
export const CONTEXT_KEEP_RECENT_MAX_MESSAGES = 100;
/** Characters counted as one token when Bastion estimates a context before a provider has counted it. */
export const CONTEXT_CHARS_PER_TOKEN = 4;
/**
 * Messages after the summary the model sees at most: more triggers a compaction even when they are
 * small, so the read below never cuts a message the summary does not cover.
 */
export const CONTEXT_COMPACT_MAX_MESSAGES = 300;
/**
 * Messages (rows) after the summary a run reads from the store, newest first, so a run's start-up
 * does not grow with the session: one step adds at most a few messages over
 * CONTEXT_COMPACT_MAX_MESSAGES before the next check compacts them.
 */
export const CONTEXT_READ_MAX_MESSAGES = 400;
/** Characters of older turns (and the previous summary) sent to be summarised, newest kept; a fraction of the window. */
export const CONTEXT_SUMMARY_INPUT_FRACTION = 0.5;
/** Characters of one message part (a text, a tool call's input, a tool's output) in what is sent to be summarised. */
export const CONTEXT_SUMMARY_PART_MAX_CHARS = 2 * KiB;
/** A summary is asked for in at most this fraction of the window, and stored in at most CONTEXT_SUMMARY_MAX_CHARS. */
export const CONTEXT_SUMMARY_WINDOW_FRACTION = 0.1;
export const CONTEXT_SUMMARY_MAX_CHARS = 32 * KiB;
/**
 * Characters of one tool result the model sees (the JSON of its output): longer strings in it
 * keep their head and tail with a note of what was cut. The store and UI keep the whole output.
 */
export const TOOL_MODEL_OUTPUT_MAX_CHARS = 16 * KiB;
/** A smaller window cuts each tool result to this fraction of it (in characters), so a few results still fit. */
export const CONTEXT_TOOL_OUTPUT_WINDOW_FRACTION = 0.1;

/** Bytes of the workspace's `.git/HEAD` read to name the branch in the system prompt. */
export const GIT_HEAD_MAX_BYTES = 512;

/** Project instructions (AGENTS.md / CLAUDE.md) read into the system prompt. */
/** Bytes read from one instructions file; the rest is cut with a note. */
export const INSTRUCTIONS_MAX_FILE_BYTES = 16 * KiB;
/** Characters of instructions in one system prompt, over all files; later (deeper) files are left out beyond it. */
export const INSTRUCTIONS_MAX_TOTAL_CHARS = 48 * KiB;
/** Directories searched for instructions in one run (the root first, then those of files the agent worked in). */
export const INSTRUCTIONS_MAX_DIRECTORIES = 16;

/** Unified diff of one write_file/edit_file result; a longer diff is cut at a line with a note. */
export const TOOL_DIFF_MAX_CHARS = 32 * KiB;
/** Edit distance (inserted + removed lines) beyond which no diff is computed (jsdiff's maxEditLength: its cost grows with the square, 0.2–0.6 s at 1 000 here, 8 s at 6 000); the result says so. */
export const TOOL_DIFF_MAX_EDIT_LENGTH = 1_000;

/** Undo (daemon `src/undo/`): the earlier bytes of each file a run wrote, kept in sessions.db. */
/**
 * Largest earlier version of one file kept for undo; a bigger file is marked not undoable. Equal to
 * the write bound, so every kept copy can be written back by the tools' own atomic write.
 */
export const UNDO_MAX_FILE_BYTES = WORKSPACE_MAX_WRITE_BYTES;
/** `GET /sessions/:id/changes`: changed files listed at most (the rest are counted in `more`); each diff is bounded like a tool's (TOOL_DIFF_MAX_CHARS). */
export const SESSION_CHANGES_MAX_FILES = 200;
/**
 * Time one `GET /sessions/:id/changes` may spend working out diffs; files reached after it are
 * listed without one (`not-compared`). A diff's cost grows with the square of its changed lines
 * (up to TOOL_DIFF_MAX_EDIT_LENGTH, about half a second on a loaded machine here), so 200 files
 * rewritten could take the daemon minutes; with this the answer comes within the bound and one
 * file past it, well inside the control socket's CONTROL_CONNECTION_TIMEOUT_MS, and the daemon
 * serves other requests between files.
 */
export const SESSION_CHANGES_DIFF_BUDGET_MS = 3_000;
/**
 * Kept bytes of one session, over all its runs. A copy that would go beyond it prunes the oldest
 * runs' copies first (those runs are then not undoable, and say so); a copy that does not fit even
 * then is not kept, and its file is marked not undoable.
 */
export const UNDO_MAX_SESSION_BYTES = 16 * MiB;
/**
 * Largest file hashed to tell whether it still holds what its run left; a larger one counts as
 * changed since (undo refuses rather than overwrite what it cannot compare).
 */
export const UNDO_MAX_FINGERPRINT_BYTES = 64 * MiB;
/** Bytes read at a time while a file is hashed for that comparison. */
export const UNDO_HASH_CHUNK_BYTES = 64 * KiB;
/** Files an undo refusal names in its message; the rest are counted ("and 3 more"). */
export const UNDO_MAX_NAMED_FILES = 10;

/** Provider retries (429 and 5xx on the same provider; never another provider, SEC-008). */
/** Attempts of one model call, the first included. */
export const PROVIDER_MAX_ATTEMPTS = 3;
/** Total time spent waiting between attempts of one model call; a Retry-After beyond what is left surfaces the error. */
export const PROVIDER_RETRY_BUDGET_MS = 60_000;
/** First backoff when the provider gave no Retry-After; doubled each attempt. */
export const PROVIDER_RETRY_INITIAL_DELAY_MS = 1_000;
/** Characters of a provider's error message kept (control characters removed) for events. */
export const PROVIDER_ERROR_MESSAGE_MAX_CHARS = 300;

/** The host and the CLI reading what the sidecar sends. */
/**
 * Before an approval prompt on a terminal, keys typed in this window (and any already waiting) are
 * thrown away: they were typed before the real prompt showed, perhaps at a look-alike in the
 * model's text, and must not answer it.
 */
export const CLI_APPROVAL_TYPE_AHEAD_DISCARD_MS = 150;
/** Sessions `bastion sessions` lists, newest first (the UI lists every one). */
export const CLI_SESSIONS_LISTED = 50;
/** Lines `bastion chat` keeps for ArrowUp at its prompt, newest first (in memory, for the chat's life). */
export const CLI_CHAT_HISTORY_LINES = 100;
/** `bastion changes --stat`: the path column is padded to the longest path, up to this many characters. */
export const CLI_CHANGES_STAT_PATH_CHARS = 60;
/** `bastion models` (and the lists run and chat's /model print): PROVIDER/MODEL is padded to the longest, up to this many characters. */
export const CLI_MODEL_NAME_CHARS = 40;
/** Lines of a command's output `bastion run` prints under it (the model gets the whole output). */
export const CLI_COMMAND_PREVIEW_LINES = 5;
/** Characters of each such line; a longer one is cut with "…". */
export const CLI_COMMAND_PREVIEW_LINE_CHARS = 160;
/** At a terminal, a running command's first this many lines print as they come; the rest is counted when it ends. */
export const CLI_LIVE_OUTPUT_LINES = 40;
/**
 * At a terminal, the host's question about a write shows this many lines of its diff and counts
 * the rest (as the page's question folds it, UI_APPROVAL_DIFF_FOLD_LINES): the diff may be up to
 * TOOL_DIFF_MAX_CHARS, hundreds of lines that would scroll the path and rule asked about far above
 * the question.
 */
export const CLI_HOST_ASK_DIFF_LINES = 40;
/**
 * Characters of a running command's unfinished line `bastion run` keeps until the line ends (it
 * prints CLI_COMMAND_PREVIEW_LINE_CHARS of it): the rest is dropped, so output without a newline
 * costs no memory.
 */
export const CLI_LIVE_PARTIAL_LINE_CHARS = 4 * KiB;
/**
 * Tool calls `bastion run` remembers at once (a call's input, for the line its result prints; a
 * running command's output state): past this the oldest is forgotten, so calls that never get a
 * result cost bounded memory.
 */
export const CLI_MAX_OPEN_CALLS = 256;
/**
 * Largest agent event the host's reader of the daemon's event stream buffers (one SSE message,
 * characters): a tool result is at most TOOL_MAX_OUTPUT_CHARS, which JSON escaping can grow six
 * times; a longer message ends the stream with DAEMON_EVENT_TOO_LARGE instead of growing memory.
 */
export const DAEMON_EVENT_MAX_CHARS = 4 * MiB;
/** Largest response body the host's daemon client reads (a transcript page, a 1 MiB file escaped as JSON). */
export const DAEMON_RESPONSE_MAX_BYTES = 16 * MiB;

/**
 * The host's own audit log (`<userData>/host/audit.jsonl`): past this size the file is rotated to
 * `audit.jsonl.1` (the older one dropped), so two files of this size bound its disk use.
 */
export const HOST_AUDIT_MAX_BYTES = 4 * MiB;
/**
 * The host's log (`<userData>/logs/host.log`): past this size it moves to `host.log.1` (the older
 * one dropped), so two files of this size bound its disk use. A short run writes a few KiB.
 */
export const HOST_LOG_MAX_BYTES = 8 * MiB;
/** Decisions one `policy.audit` host IPC call returns (newest first) when the page asks for no number. */
export const HOST_AUDIT_DEFAULT_PAGE = 100;
/** Most decisions one `policy.audit` call returns; older ones are paged with its `next` cursor. */
export const HOST_AUDIT_MAX_PAGE = 500;
/**
 * Host-owned asks (host `src/policy/host-asks.ts`): a tool call the host's policy says `ask` for
 * is held until a person answers the host, for at most this long, then refused.
 */
export const HOST_ASK_TIMEOUT_MS = 10 * 60_000;
/** Calls held for a person's answer at once; one more is refused at once (COMMAND_POLICY_UNAPPROVED for a command). */
export const HOST_ASK_MAX_PENDING = 16;
/** The desktop page's wait for a change in the held calls (`asks.wait`) answers after this at the latest. */
export const HOST_ASK_POLL_MS = 25_000;
/**
 * A desktop page counts as someone the host can ask while it waits on `asks.wait`, or
 * within this long after its last wait ended (the page asks again at once).
 */
export const HOST_ASK_PAGE_GAP_MS = 5_000;
/**
 * How long an edit of a host-owned file (policy.json, mcp.json) waits for another process's edit
 * of it to end before it refuses, changing nothing (host file-lock.ts).
 */
export const HOST_FILE_EDIT_LOCK_WAIT_MS = 5_000;
/** The pauses between tries at a taken file lock (host file-lock.ts), the last one repeated until the wait is over. */
export const HOST_FILE_LOCK_RETRY_PAUSES_MS: readonly number[] = [1, 2, 5, 10, 20, 50];
/** The watchdog's policy rules (host `src/policy/`, `<userData>/host/policy.json`). */
/** Rules in one layer (global, or one project); the benchmark evaluates 1 000 in one layer. */
export const POLICY_MAX_RULES_PER_LAYER = 2_000;
/** Projects with rules of their own in policy.json. */
export const POLICY_MAX_PROJECTS = 256;
/** policy.json is read whole; a larger file is refused rather than parsed. */
export const POLICY_MAX_FILE_BYTES = 4 * MiB;
/** A rule id: short, printable, unique in its layer. */
export const POLICY_MAX_RULE_ID_CHARS = 64;
/** One token of a rule's command name, argv prefix or argument set. */
export const POLICY_MAX_TOKEN_CHARS = 256;
/** Tokens in a rule's argv prefix (exact match of the call's first arguments). */
export const POLICY_MAX_PREFIX_TOKENS = 32;
/** Token sets a rule may require among a command's arguments, and tokens in each set. */
export const POLICY_MAX_ARG_SETS = 4;
export const POLICY_MAX_ARG_SET_TOKENS = 32;
/** Path globs in one rule, and the length of each. */
export const POLICY_MAX_GLOBS = 32;
export const POLICY_MAX_GLOB_CHARS = 512;
/** Tool names in one rule, and the length of a tool name. */
export const POLICY_MAX_TOOLS = 16;
export const POLICY_MAX_TOOL_NAME_CHARS = 64;
/** A rule's reason, shown when it denies or asks. */
export const POLICY_MAX_REASON_CHARS = 256;
/** Paths one `policy.check` may name (a file tool names one; the rest is headroom for later tools). */
export const POLICY_MAX_CHECK_PATHS = 16;
/** The daemon waits this long for the host's policy decision, then treats the call as denied. */
export const POLICY_CHECK_TIMEOUT_MS = 5_000;
/** Policy checks one sidecar may have waiting for an answer at once. */
export const POLICY_MAX_PENDING_CHECKS = 64;

/** Host control socket (`<userData>/host.sock`: `bastion open`, a second `start`, `secrets set`). */
/** Largest request line a control client may send (a `secrets set` carries a key of SECRETS_MAX_KEY_CHARS). */
export const CONTROL_MAX_REQUEST_BYTES = 16 * KiB;
/** Largest answer line a control client reads (an undo's answer lists every file of the run). */
export const CONTROL_MAX_ANSWER_BYTES = 1 * MiB;
/**
 * Largest answer line of `bastion sessions export` through the running host: the session's
 * markdown (prompts and replies whole, tool inputs cut to EXPORT_TOOL_INPUT_CHARS). The host
 * refuses a longer one with EXPORT_TOO_LARGE, and the UI's Export saves it; the CLI's own host,
 * when none runs, holds an export to the same bound, so the answer does not depend on which.
 */
export const CONTROL_MAX_EXPORT_ANSWER_BYTES = 64 * MiB;
/**
 * Largest answer line of `session.changes`: the daemon's answer, which the host reads up to
 * DAEMON_RESPONSE_MAX_BYTES and writes again as the same JSON, and the few bytes around it.
 * SESSION_CHANGES_MAX_FILES diffs of TOOL_DIFF_MAX_CHARS come to about 6.5 MiB; a daemon answer
 * over the host's bound (diffs full of characters JSON escapes) is refused in words instead
 * (DAEMON_RESPONSE_TOO_LARGE), by the running host and the CLI's own alike.
 */
export const CONTROL_MAX_CHANGES_ANSWER_BYTES = DAEMON_RESPONSE_MAX_BYTES + 4_096;
/** A refusal's or failure's message in a control answer (the daemon's error message, passed on). */
export const CONTROL_MAX_MESSAGE_CHARS = 1_024;
/** A control connection must finish its request and read its answer within this time. */
export const CONTROL_CONNECTION_TIMEOUT_MS = 10_000;
/**
 * `bastion secrets set`: how long it keeps trying "through the holder, else a host of its own"
 * while the home is held by hosts that are starting or stopping (concurrent `run`/`secrets set`).
 */
export const SECRETS_STORE_WAIT_MS = 30_000;
/** How long a second process waits for the lock holder's control socket to answer (the holder may still be starting). */
export const CONTROL_HOLDER_WAIT_MS = 3_000;
/**
 * The system opener (xdg-open/open) exits at once when it found nothing to open with (xdg-open:
 * exit 3); one still running after this long is taken to have handed the URL to a browser.
 */
export const SYSTEM_OPENER_VERDICT_MS = 3_000;

/** The secret-egress guard (host `src/network/egress-guard.ts`). */
/** A held credential shorter than this is not scanned for (it would match ordinary text). */
export const EGRESS_MIN_SECRET_CHARS = 8;
/** Compiled scans kept (one per set of credentials a request may carry); the oldest is dropped beyond this. */
export const EGRESS_MAX_CACHED_PATTERNS = 16;

/** `bastion doctor`'s `PRAGMA quick_check(N)` on sessions.db stops after this many problems. */
export const STORE_CHECK_MAX_PROBLEMS = 20;

/** The watchdog's audit log (daemon `tool_audit` table). */
/** Most audit rows one `GET /sessions/:id/audit` returns (newest first; older ones are paged with its `next`). */
export const AUDIT_MAX_PAGE = 500;
/**
 * Rows an audit log in Settings (the session's and the host's) reads at a time, newest first;
 * "Show older" reads the next page, so a long log is never read or drawn whole.
 */
export const AUDIT_VIEW_PAGE = 50;

/**
 * MCP servers (host `src/mcp/`): programs the user names in `<home>/host/mcp.json`, each run by
 * the host inside the command sandbox (no network, the workspace read-only), whose tools the
 * agent may call.
 */
/** Servers one home may name. */
export const MCP_MAX_SERVERS = 16;
/** mcp.json itself (sixteen servers with their longest argument lists would not fit; ordinary ones take a few KiB). */
export const MCP_CONFIG_MAX_FILE_BYTES = 1 * MiB;
/** A server's name: what `mcp__NAME__TOOL` carries. */
export const MCP_SERVER_NAME_MAX_CHARS = 24;
/** A variable's name a server may be given. */
export const MCP_ENV_NAME_MAX_CHARS = 64;
/** `mcp__SERVER__TOOL` whole: the longest function name OpenAI, Anthropic and the OpenAI-compatible servers all take. */
export const MCP_TOOL_NAME_MAX_CHARS = 64;
/** Variables one server's `env` may set. */
export const MCP_MAX_ENV_VARS = 32;
/** One `env` value. */
export const MCP_ENV_VALUE_MAX_CHARS = 4 * KiB;
/** Tools taken from one server; the rest are left out, and the server's status says how many. */
export const MCP_MAX_TOOLS_PER_SERVER = 64;
/** A tool's description as the model and the UI see it (cut beyond). */
export const MCP_TOOL_DESCRIPTION_MAX_CHARS = 2 * KiB;
/** A tool's input JSON schema, serialised; a tool whose schema is larger is left out. */
export const MCP_TOOL_SCHEMA_MAX_BYTES = 16 * KiB;
/** All servers' tools in one `mcp.listed` frame (a channel frame is at most 256 KiB); tools beyond are left out. */
export const MCP_LISTING_MAX_BYTES = 192 * KiB;
/** One JSON-RPC message a server writes (one line); a longer one stops the server. */
export const MCP_MESSAGE_MAX_BYTES = 4 * MiB;
/** A call's arguments, serialised (escaped once more in its frame, so well under a frame's 256 KiB). */
export const MCP_CALL_ARGS_MAX_BYTES = 32 * KiB;
/** A call's result text as the sidecar receives it (UTF-8 bytes; cut beyond, and said so). */
export const MCP_RESULT_MAX_BYTES = 32 * KiB;
/** From spawn to a listed set of tools. */
export const MCP_START_TIMEOUT_MS = 30_000;
/** One tool call. */
export const MCP_CALL_TIMEOUT_MS = 120_000;
/**
 * How much longer the sidecar waits for the host's answer to `mcp.list` or `mcp.call` than the
 * host's own bound, so the host's answer (or its timeout) always comes first.
 */
export const MCP_ANSWER_GRACE_MS = 5_000;
/** A stopping server: from its stdin closed and SIGTERM to SIGKILL. */
export const MCP_STOP_GRACE_MS = 2_000;
/**
 * `bastion mcp restart` through the control socket: how long the answer waits for the start (which
 * may take MCP_START_TIMEOUT_MS) within a control connection's life; past it, `starting` is answered.
 */
export const CONTROL_MCP_RESTART_WAIT_MS = CONTROL_CONNECTION_TIMEOUT_MS - 2_000;
/** Calls in flight at once, over every server. */
export const MCP_MAX_CONCURRENT_CALLS = 8;
/** The end of a server's stderr kept to say why it failed to start or stopped. */
export const MCP_STDERR_TAIL_CHARS = 2 * KiB;
/** A status's `error`, in words. */
export const MCP_ERROR_MAX_CHARS = 2 * KiB;
/**
 * A server's prompts (`/mcp__SERVER__PROMPT` in the message box and `bastion chat`) and resources
 * (`@SERVER:URI`): offered to the person only, never to the agent. Prompts taken from one server;
 * the rest are left out, and one note counts them.
 */
export const MCP_MAX_PROMPTS_PER_SERVER = 64;
/** Resources taken from one server; the rest are left out, and one note counts them. */
export const MCP_MAX_RESOURCES_PER_SERVER = 64;
/** Resource templates (`resources/templates/list`) taken from one server; the rest are left out, and one note counts them. */
export const MCP_MAX_RESOURCE_TEMPLATES_PER_SERVER = 32;
/** Variables a resource template may have (each asked of the person); a template with more is left out. */
export const MCP_RESOURCE_TEMPLATE_MAX_VARIABLES = 8;
/** Pages of one `tools/list`, `prompts/list` or `resources/list` read at a start (a server that pages without end is read no further). */
export const MCP_LIST_MAX_PAGES = 16;
/**
 * A server's `notifications/…/list_changed`: its lists are read again (as at its start, within
 * MCP_START_TIMEOUT_MS and the same bounds) once it has sent none for this long, one reading at a
 * time; a server that keeps sending them is read no more often than that.
 */
export const MCP_LIST_CHANGED_DEBOUNCE_MS = 300;
/** Arguments a prompt may take; a prompt with more is left out. */
export const MCP_PROMPT_MAX_ARGUMENTS = 16;
/** An argument's name (typed as `NAME=value`); a prompt with a longer one is left out. */
export const MCP_PROMPT_ARGUMENT_NAME_MAX_CHARS = 64;
/** One argument's value as the person types it (a host IPC body is HOST_IPC_MAX_BODY_BYTES whole). */
export const MCP_PROMPT_ARGUMENT_VALUE_MAX_CHARS = 2 * KiB;
/** A prompt's, an argument's or a resource's description as the menus show it (cut beyond). */
export const MCP_OFFER_DESCRIPTION_MAX_CHARS = 512;
/** A resource's URI; a resource with a longer one is left out. */
export const MCP_RESOURCE_URI_MAX_CHARS = 1 * KiB;
/** A resource's name (its title, else its name) as the @ menu shows it (cut beyond). */
export const MCP_RESOURCE_NAME_MAX_CHARS = 128;
/** A resource's MIME type as listed; a longer one is dropped. */
export const MCP_RESOURCE_MIME_TYPE_MAX_CHARS = 128;
/**
 * One server's prompts and resources as listed (their JSON, UTF-8 bytes): those beyond are left
 * out, so sixteen servers' offers stay within what one listing carries.
 */
export const MCP_OFFERS_MAX_BYTES = 32 * KiB;
/**
 * A prompt's messages as the text put in the message box (UTF-16 units): a message's own bound,
 * since it is sent as one. A longer one is refused, never cut.
 */
export const MCP_PROMPT_TEXT_MAX_CHARS = AGENT_MAX_MESSAGE_CHARS;
/** A resource's text attached to a message (UTF-8 bytes); a larger one is refused, never cut. */
export const MCP_RESOURCE_TEXT_MAX_BYTES = 64 * KiB;
/** A prompt run (`prompts/get`) or a resource read (`resources/read`) for the person, who waits for it. */
export const MCP_READ_TIMEOUT_MS = 30_000;
/** Resources one message may carry (`POST /agent/run`'s `mcp_resources`). */
export const AGENT_MAX_MCP_RESOURCES = 4;
/**
 * Ranges of a message's text its MCP server's prompt wrote (`POST /agent/run`'s `mcp_prompt.spans`):
 * each edit of the person's inside the prompt's text splits one, so a message rarely holds more
 * than a few. A message whose box held more is sent without them, and counts as the server's whole.
 */
export const MCP_PROMPT_MAX_SPANS = 256;
/** Characters of a session's title a desktop notification shows (the title is the only thing of the session it names). */
export const UI_NOTIFICATION_TITLE_CHARS = 80;
/** Newest events of another session read to name the tool its run waits on, or its error's code, for a notification. */
export const UI_NOTIFICATION_EVENTS_READ = 20;
