/**
 * The MCP servers the user named: `<userData>/host/mcp.json` (0600, atomic writes, the
 * private-file discipline, as policy.json). Host-owned: never read from a workspace (a project's
 * `.mcp.json` would let a cloned repository choose programs to run), and the sidecar cannot write
 * it (`host/` is read- and write-denied in its sandbox). Edited by host IPC (Settings) and
 * `bastion mcp`, which writes it in its own process while a host runs; re-read whenever its stamp
 * changes, so an edit from the CLI counts at the next run.
 *
 * Every edit reads the list and writes it back whole, holding `host/mcp.json.lock` from its read
 * to its write (file-lock.ts), so edits from the host and the CLI at once all land.
 */
import { dirname, join } from 'node:path';
import {
  MCP_CONFIG_MAX_FILE_BYTES,
  MCP_MAX_SERVERS,
  mcpConfigFileSchema,
  mcpServerConfigSchema,
  type McpConfigFile,
  type McpServerConfig,
} from '@bastion/protocol';
import { HostError } from '../errors.js';
import { withEditLock } from '../file-lock.js';
import { currentStamp, parsePrivateJson, readPrivateFile, writePrivateFile, type FileStamp } from '../private-file.js';
import { hostOnlyDir, MCP_DATA_DIR_NAME } from '../user-data.js';

export const MCP_FILE_NAME = 'mcp.json';

const EMPTY_FILE: McpConfigFile = { version: 1, servers: [] };

export class McpConfigStore {
  readonly path: string;
  #cache: { stamp: FileStamp | undefined; result: McpConfigFile | HostError } | undefined;

  constructor(userData: string) {
    this.path = join(hostOnlyDir(userData), MCP_FILE_NAME);
  }

  /** Where a server's data folder is (`host/mcp-data/NAME`), made or not: the hub makes it at the server's start. */
  dataFolderOf(name: string): string {
    return join(dirname(this.path), MCP_DATA_DIR_NAME, name);
  }

  /** The servers as the file names them now; throws a HostError (`PRIVATE_FILE_*`, `MCP_CONFIG_INVALID`) when it cannot be used. */
  servers(): McpServerConfig[] {
    const stamp = currentStamp(this.path);
    if (!this.#cache || this.#cache.stamp !== stamp) this.#cache = { stamp, result: this.#read() };
    if (this.#cache.result instanceof HostError) throw this.#cache.result;
    return this.#cache.result.servers;
  }

  /** Add a server; its name must be new. */
  add(server: McpServerConfig): McpServerConfig {
    const checked = mcpServerConfigSchema.safeParse(server);
    if (!checked.success) {
      const issue = checked.error.issues[0];
      throw new HostError('MCP_SERVER_INVALID', `${issue?.path.join('.') || 'server'}: ${issue?.message ?? 'invalid'}`);
    }
    return this.#edit((servers) => {
      if (servers.some((existing) => existing.name === checked.data.name)) {
        throw new HostError('MCP_SERVER_EXISTS', `a server named ${checked.data.name} exists already; remove it first`);
      }
      if (servers.length >= MCP_MAX_SERVERS) {
        throw new HostError('MCP_TOO_MANY_SERVERS', `at most ${MCP_MAX_SERVERS} servers; remove one first`);
      }
      this.#write({ version: 1, servers: [...servers, checked.data] });
      return checked.data;
    });
  }

  /** Remove a server by name; false when there is none of that name. */
  remove(name: string): boolean {
    return this.#edit((servers) => {
      const kept = servers.filter((server) => server.name !== name);
      if (kept.length === servers.length) return false;
      this.#write({ version: 1, servers: kept });
      return true;
    });
  }

  /** Run `change` on the servers as the file names them now, holding mcp.json's lock from that read to its write. */
  #edit<T>(change: (servers: McpServerConfig[]) => T): T {
    return withEditLock(this.path, () => {
      // Read under the lock, never from the cache: a file another process wrote since could carry
      // the same stamp (an inode reused within the same millisecond, at the same size).
      this.#cache = undefined;
      return change(this.servers());
    });
  }

  #write(file: McpConfigFile): void {
    const checked = mcpConfigFileSchema.parse(file);
    writePrivateFile(this.path, `${JSON.stringify(checked, null, 2)}\n`, MCP_CONFIG_MAX_FILE_BYTES);
    this.#cache = undefined;
  }

  #read(): McpConfigFile | HostError {
    try {
      const read = readPrivateFile(this.path, MCP_CONFIG_MAX_FILE_BYTES);
      return read ? parsePrivateJson(read.text, mcpConfigFileSchema, MCP_FILE_NAME, 'MCP_CONFIG_INVALID') : EMPTY_FILE;
    } catch (error) {
      return error instanceof HostError
        ? error
        : new HostError('MCP_CONFIG_INVALID', `${MCP_FILE_NAME} cannot be used`);
    }
  }
}
