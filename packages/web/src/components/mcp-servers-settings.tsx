/**
 * Settings → MCP servers: the programs named in the host's mcp.json, each with its command line
 * (no shell), the names of its environment variables (never their values), its state in the
 * chosen project and why it failed, its tools and what was left out; Add server, Restart and
 * Remove (after a confirmation). Everything goes to the host through host IPC, never the daemon;
 * the host runs each server in the command sandbox of that project only.
 */
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { MCP_DATA_ENV, UI_MCP_STARTING_REFRESH_MS, UI_MCP_TOOLS_FOLDED } from '@bastion/protocol';
import type { BastionApi, McpListing, McpServerState, McpServerStatus, McpToolSummary } from '@bastion/bridge';
import { describeError, errorCode } from '../bastion.js';
import { plural } from '../image-attachment.js';
import { argumentsOf, argumentWarnings, readMcpServerForm, type McpServerFields } from '../mcp-server-form.js';
import { ConfirmActions, Dialog } from './dialog.js';

const STATE_WORDS: Readonly<Record<McpServerState, string>> = {
  stopped: 'not running',
  starting: 'starting…',
  ready: 'ready',
  failed: 'failed',
};

type Notice = { kind: 'ok' | 'error' | 'wait'; text: string };

/** Words the host gave, ending as a sentence does. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

const EMPTY_FIELDS: McpServerFields = { name: '', command: '', args: '', env: '' };

/** What became of a server the host was asked to start: ready with its tools, failed and why, or still starting. */
function startedNotice(listing: McpListing, name: string, verb: string): Notice {
  const server = listing.servers.find((entry) => entry.name === name);
  if (!listing.available) return { kind: 'error', text: `${name} ${verb}, but servers cannot run here.` };
  switch (server?.state) {
    case 'ready':
      return { kind: 'ok', text: `${name} ${verb}: ready, with ${plural(server.tools.length, 'tool')}.` };
    case 'failed':
      return { kind: 'error', text: `${name} ${verb}, but it failed to start: its error is shown above.` };
    case 'starting':
      return { kind: 'wait', text: `${name} ${verb}; it is still starting.` };
    case 'stopped':
    case undefined:
      return { kind: 'wait', text: `${name} ${verb}.` };
  }
}

/** `focusFor`: a project to choose first and show the card for, scrolled into view once it is listed. */
export function McpServersSettings({ bastion, focusFor }: { bastion: BastionApi; focusFor?: string | undefined }) {
  /** The granted project folders; undefined until read. */
  const [roots, setRoots] = useState<readonly string[]>();
  const [workspace, setWorkspace] = useState<string>();
  const [listing, setListing] = useState<McpListing>();
  const [error, setError] = useState<string>();
  /** What the host is doing at the person's asking, in words; every button waits meanwhile. */
  const [busy, setBusy] = useState<string>();
  const [notice, setNotice] = useState<Notice>();
  const [fields, setFields] = useState<McpServerFields>(EMPTY_FIELDS);
  const [formError, setFormError] = useState<string>();
  const [removing, setRemoving] = useState<string>();
  const [removeFailure, setRemoveFailure] = useState<string>();
  /** The project chosen now: an answer about another one (chosen before) is not shown. */
  const chosen = useRef<string>(undefined);
  const show = (answer: McpListing): boolean => {
    if (answer.workspace !== chosen.current) return false;
    setListing(answer);
    setError(undefined);
    return true;
  };

  const load = useCallback(
    async (root: string) => {
      try {
        const answer = await bastion.mcp.list(root);
        if (answer.workspace !== chosen.current) return;
        setListing(answer);
        setError(undefined);
      } catch (failure) {
        if (root === chosen.current) setError(describeError(failure));
      }
    },
    [bastion],
  );

  useEffect(() => {
    bastion.workspaces
      .list()
      .then(({ workspaces }) => {
        const found = workspaces.map((entry) => entry.root);
        setRoots(found);
        setWorkspace(focusFor !== undefined && found.includes(focusFor) ? focusFor : found[0]);
      })
      .catch((failure: unknown) => setError(describeError(failure)));
  }, [bastion, focusFor]);
  useEffect(() => {
    chosen.current = workspace;
    if (workspace !== undefined) void load(workspace);
  }, [workspace, load]);

  // Opened for a project (`/mcp`): the card comes into view once its servers are listed.
  const card = useRef<HTMLElement>(null);
  const focused = useRef(false);
  useEffect(() => {
    if (focusFor === undefined || listing === undefined || focused.current) return;
    focused.current = true;
    // Scrolled within the content pane only: scrollIntoView would move the page under the app's header too.
    const section = card.current;
    const pane = section?.closest('.content');
    if (section && pane) pane.scrollTop += section.getBoundingClientRect().top - pane.getBoundingClientRect().top;
  }, [focusFor, listing]);

  // A run may start a server at any time: while one is starting, the card follows it.
  const starting = listing?.servers.some((server) => server.state === 'starting') === true;
  useEffect(() => {
    if (!starting || busy !== undefined || workspace === undefined) return undefined;
    const timer = window.setTimeout(() => void load(workspace), UI_MCP_STARTING_REFRESH_MS);
    return () => window.clearTimeout(timer);
  }, [starting, busy, workspace, listing, load]);

  /** One host call that answers with the listing; `after` says what came of it. */
  const act = async (
    doing: string,
    call: () => Promise<McpListing>,
    after: (answer: McpListing) => void,
    failed: (failure: unknown) => void,
  ) => {
    setBusy(doing);
    setNotice(undefined);
    try {
      const answer = await call();
      if (show(answer)) after(answer);
    } catch (failure) {
      failed(failure);
    } finally {
      setBusy(undefined);
    }
  };

  const add = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (workspace === undefined) return;
    const read = readMcpServerForm(fields, workspace);
    if (!read.ok) {
      setFormError(read.message);
      return;
    }
    setFormError(undefined);
    const { server } = read;
    void act(
      `Adding ${server.name} and starting it (up to 30 seconds)…`,
      () => bastion.mcp.add(workspace, server),
      (answer) => {
        setFields(EMPTY_FIELDS);
        setNotice(startedNotice(answer, server.name, 'added'));
      },
      (failure) =>
        setFormError(
          errorCode(failure) === 'IPC_BODY'
            ? `The host refused this definition as not well-formed: ${describeError(failure)}`
            : `Not added: ${describeError(failure)}`,
        ),
    );
  };

  const restart = (name: string) => {
    if (workspace === undefined) return;
    void act(
      `Restarting ${name} (up to 30 seconds)…`,
      () => bastion.mcp.restart(workspace, name),
      (answer) => setNotice(startedNotice(answer, name, 'restarted')),
      (failure) => setNotice({ kind: 'error', text: describeError(failure) }),
    );
  };

  const remove = (name: string) => {
    if (workspace === undefined) return;
    void act(
      `Removing ${name}…`,
      () => bastion.mcp.remove(workspace, name),
      () => {
        setRemoving(undefined);
        setNotice({ kind: 'ok', text: `${name} removed: it is stopped and no longer in mcp.json.` });
      },
      (failure) => setRemoveFailure(describeError(failure)),
    );
  };

  const args = argumentsOf(fields.args);
  const warnings = argumentWarnings(args);
  const field = (name: keyof McpServerFields) => ({
    name,
    value: fields[name],
    onChange: (event: { currentTarget: { value: string } }) => {
      const value = event.currentTarget.value;
      setFields((previous) => ({ ...previous, [name]: value }));
    },
  });

  return (
    <section className="card mcp-servers" aria-labelledby="mcp-title" ref={card}>
      <h2 id="mcp-title">MCP servers</h2>
      <p className="muted">
        Programs that give the agent more tools (the Model Context Protocol over stdio), each tool named{' '}
        <code>mcp__SERVER__TOOL</code>. A server runs in the sandbox: no network, your project read-only, nothing of
        your home’s secrets — and without a shell. It starts in a project when a run there first needs its tools.
      </p>
      <p className="muted">
        Kept in {listing === undefined ? 'the host’s mcp.json' : <code>{listing.file}</code>}, the host’s own file (
        <code>bastion mcp</code> edits it too): a project’s files never add a server.
      </p>
      {roots !== undefined && roots.length > 1 ? (
        <label className="mcp-project">
          Project
          <select value={workspace} onChange={(event) => setWorkspace(event.currentTarget.value)} disabled={!!busy}>
            {roots.map((root) => (
              <option key={root} value={root}>
                {root}
              </option>
            ))}
          </select>
        </label>
      ) : (
        workspace !== undefined && (
          <p className="muted">
            Project: <code>{workspace}</code>
          </p>
        )
      )}
      {roots !== undefined && roots.length === 0 && (
        <p className="muted" role="status">
          Bastion has no project folder open, so no server can run; open a folder first.
        </p>
      )}
      {listing !== undefined && !listing.available && (
        <p className="inline-info" role="status">
          Servers cannot run here: {sentence(listing.reason ?? 'commands are not sandboxed on this machine')}
        </p>
      )}
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
      {listing !== undefined &&
        (listing.servers.length === 0 ? (
          <p className="muted" role="status">
            No servers yet.
          </p>
        ) : (
          <ul className="mcp-server-list" aria-label="MCP servers">
            {listing.servers.map((server) => (
              <McpServerItem
                key={server.name}
                server={server}
                busy={busy !== undefined}
                available={listing.available}
                onRestart={() => restart(server.name)}
                onRemove={() => {
                  setRemoveFailure(undefined);
                  setRemoving(server.name);
                }}
              />
            ))}
          </ul>
        ))}
      {busy !== undefined && !removing && (
        <p className="inline-wait" role="status">
          {busy}
        </p>
      )}
      {notice && (
        <p className={`inline-${notice.kind}`} role={notice.kind === 'error' ? 'alert' : 'status'}>
          {notice.text}
        </p>
      )}
      {workspace !== undefined && (
        <form className="mcp-form" aria-label="Add server" onSubmit={add} noValidate>
          <h3>Add server</h3>
          {/* No label here says "name" or "URL": other cards' fields are found by those words. */}
          <label>
            Server
            <input
              {...field('name')}
              placeholder="memory"
              maxLength={24}
              autoComplete="off"
              spellCheck={false}
              aria-describedby="mcp-name-hint"
            />
          </label>
          <p id="mcp-name-hint" className="muted field-hint">
            What it is called: lower-case letters, digits and “-”; its tools reach the agent as{' '}
            <code>mcp__SERVER__TOOL</code>.
          </p>
          <label>
            Program
            <input
              {...field('command')}
              placeholder="node"
              autoComplete="off"
              spellCheck={false}
              aria-describedby="mcp-command-hint"
            />
          </label>
          <p id="mcp-command-hint" className="muted field-hint">
            A program on the PATH (<code>node</code>, <code>npx</code>) or its absolute path.
          </p>
          <label>
            Arguments, one per line
            <textarea
              {...field('args')}
              rows={3}
              wrap="off"
              spellCheck={false}
              placeholder={'/path/to/server/index.js\n--verbose'}
              aria-describedby="mcp-args-hint"
            />
          </label>
          <p id="mcp-args-hint" className="muted field-hint">
            No shell: each line is one argument exactly as written — spaces, quotes, <code>$VARS</code> and{' '}
            <code>~</code> included. Empty lines are left out.
          </p>
          <label>
            Environment, VARIABLE=value per line (optional)
            <textarea
              {...field('env')}
              rows={2}
              wrap="off"
              spellCheck={false}
              autoComplete="off"
              placeholder="LOG_LEVEL=debug"
              aria-describedby="mcp-env-hint"
            />
          </label>
          <p id="mcp-env-hint" className="muted field-hint">
            Saved in mcp.json for the server to read; this page shows only the names afterwards.
          </p>
          {fields.command.trim() !== '' && (
            <div className="mcp-preview" aria-label="Will run">
              <span className="muted">Will run, without a shell:</span>
              <span className="argv">
                {[fields.command.trim(), ...args].map((arg, index) => (
                  <code key={index}>{arg}</code>
                ))}
              </span>
            </div>
          )}
          {warnings.map((warning) => (
            <p key={warning} className="flag">
              {warning}
            </p>
          ))}
          <div className="row">
            <button type="submit" className="primary" disabled={busy !== undefined}>
              Add server
            </button>
          </div>
          {formError && (
            <p className="inline-error" role="alert">
              {formError}
            </p>
          )}
        </form>
      )}
      {removing !== undefined && (
        <Dialog title={`Remove the MCP server ${removing}?`} onCancel={() => setRemoving(undefined)}>
          <p>
            It is stopped in every project and taken out of mcp.json; the agent no longer has its tools. To use it
            again, add it again.
          </p>
          {busy !== undefined && (
            <p className="inline-wait" role="status">
              {busy}
            </p>
          )}
          <ConfirmActions
            failure={removeFailure}
            failedAs="Not removed"
            onClose={() => setRemoving(undefined)}
            action={{ label: 'Remove', disabled: busy !== undefined, onClick: () => remove(removing) }}
          />
        </Dialog>
      )}
    </section>
  );
}

function McpServerItem({
  server,
  busy,
  available,
  onRestart,
  onRemove,
}: {
  server: McpServerStatus;
  busy: boolean;
  /** Whether servers can run here at all: where they cannot, nothing starts one. */
  available: boolean;
  onRestart: () => void;
  onRemove: () => void;
}) {
  return (
    <li className="mcp-server" aria-label={`MCP server ${server.name}`}>
      <div className="mcp-server-head">
        <strong>{server.name}</strong>
        <span className={`badge mcp-state-${server.state}`} data-testid="mcp-state">
          {STATE_WORDS[server.state]}
        </span>
        <span className="row mcp-server-actions">
          <button type="button" className="small" disabled={busy || !available} onClick={onRestart}>
            Restart
          </button>
          <button type="button" className="small danger" disabled={busy} onClick={onRemove}>
            Remove
          </button>
        </span>
      </div>
      <dl className="mcp-fields">
        <dt>Runs</dt>
        <dd className="argv" aria-label="Command line">
          {[server.command, ...server.args].map((arg, index) => (
            <code key={index}>{arg}</code>
          ))}
        </dd>
        {server.env_names.length > 0 && (
          <>
            <dt>Environment</dt>
            <dd>
              {server.env_names.map((name, index) => (
                <span key={name}>
                  {index > 0 && ', '}
                  <code>{name}</code>
                </span>
              ))}{' '}
              <span className="muted">(values not shown)</span>
            </dd>
          </>
        )}
        <dt>Data</dt>
        <dd>
          <code>{server.data}</code>{' '}
          <span className="muted">
            (its own folder, kept between runs; <code>{MCP_DATA_ENV}</code> names it to the server)
          </span>
        </dd>
        {server.state === 'stopped' && (
          <>
            <dt>State</dt>
            <dd className="muted">
              {available
                ? 'Not running in this project: it starts when a run here first needs its tools.'
                : 'Not running: servers cannot run here.'}
            </dd>
          </>
        )}
        {server.state === 'failed' && (
          <>
            <dt>Error</dt>
            <dd className="inline-error" data-testid="mcp-error">
              {server.error ?? 'It failed, and said nothing of why.'}
            </dd>
          </>
        )}
        {server.tools.length > 0 && (
          <>
            <dt>{plural(server.tools.length, 'tool')}</dt>
            <dd>
              <McpToolList tools={server.tools} />
            </dd>
          </>
        )}
        {server.state === 'ready' && server.tools.length === 0 && (
          <>
            <dt>Tools</dt>
            <dd className="muted">None the agent can use.</dd>
          </>
        )}
        {server.left_out.length > 0 && (
          <>
            <dt>Left out</dt>
            <dd>
              <ul className="mcp-left-out" aria-label="Tools left out">
                {server.left_out.map((note, index) => (
                  <li key={index}>{note}</li>
                ))}
              </ul>
            </dd>
          </>
        )}
      </dl>
    </li>
  );
}

function McpToolList({ tools }: { tools: readonly McpToolSummary[] }) {
  const long = tools.length > UI_MCP_TOOLS_FOLDED;
  const [open, setOpen] = useState(false);
  const shown = open || !long ? tools : tools.slice(0, UI_MCP_TOOLS_FOLDED);
  return (
    <>
      <ul className="mcp-tools" aria-label="Tools">
        {shown.map((tool) => (
          <li key={tool.name}>
            <code>{tool.name}</code>
            {tool.description !== '' && <span className="mcp-tool-description"> {tool.description}</span>}
          </li>
        ))}
      </ul>
      {long && (
        <button type="button" className="small" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? 'Show fewer' : `Show all ${tools.length} tools`}
        </button>
      )}
    </>
  );
}
