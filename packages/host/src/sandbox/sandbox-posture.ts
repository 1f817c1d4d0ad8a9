/**
 * SEC-004 (outer sandbox, fail closed): the posture the host runs the sidecar with, decided by the
 * host from the platform and srt's dependency check, and sent to the sidecar in the bootstrap
 * frame's capabilities (the sidecar never decides its own).
 *
 *   linux/darwin, srt usable      → sandbox 'srt', shell on.
 *   linux/darwin, srt not usable  → sandbox 'none', shell withheld, reason names what is missing
 *                                   and how to install it; `--unsandboxed-shell` (explicit
 *                                   consent) is the only way to get the shell back unsandboxed.
 *   win32 and anything else       → sandbox 'none', shell withheld, file tools stay.
 *
 * The platform and the dependency check are inputs so every branch is unit-tested on one machine.
 * What it does not catch: a sandbox that is installed but broken at run time (bwrap refused by a
 * kernel setting); that fails the sidecar's start instead, which the supervisor reports.
 */
import { SandboxManager, type SandboxDependencyCheck } from '@anthropic-ai/sandbox-runtime';
import type { Capabilities } from '@bastion/protocol';

/** The system packages srt needs on Linux, with the error text srt reports when one is absent. */
export const SANDBOX_PACKAGES = [
  { name: 'bubblewrap', binary: 'bwrap', missingWhen: /^bubblewrap \(bwrap\) not installed/ },
  { name: 'socat', binary: 'socat', missingWhen: /^socat not installed/ },
  { name: 'ripgrep', binary: 'rg', missingWhen: /^ripgrep \(rg\) not found/ },
] as const;

export type SandboxPackageName = (typeof SANDBOX_PACKAGES)[number]['name'];

export interface SandboxAvailability {
  available: boolean;
  /** System packages to install, in SANDBOX_PACKAGES order. */
  missing: SandboxPackageName[];
  /** Everything srt reported that stops it (package errors included), for the reason text. */
  problems: string[];
  /** The command that installs `missing`, when there is one for this platform. */
  install: string | undefined;
}

export interface SandboxPosture {
  capabilities: Capabilities;
  availability: SandboxAvailability;
  /** Set when the user consented to an unsandboxed shell: print it loudly. */
  warning: string | undefined;
}

const SANDBOXED_PLATFORMS: readonly NodeJS.Platform[] = ['linux', 'darwin'];

export function installCommand(platform: NodeJS.Platform, missing: readonly SandboxPackageName[]): string | undefined {
  if (missing.length === 0) return undefined;
  if (platform === 'darwin') return `brew install ${missing.join(' ')}`;
  return `sudo apt-get install -y ${missing.join(' ')}   (Debian/Ubuntu; Fedora: sudo dnf install -y ${missing.join(' ')})`;
}

/** What srt needs on `platform` and what of it is missing. `check` defaults to srt's own. */
export function checkSandboxAvailability(
  platform: NodeJS.Platform,
  check: () => SandboxDependencyCheck = () => SandboxManager.checkDependencies(),
): SandboxAvailability {
  if (!SANDBOXED_PLATFORMS.includes(platform)) {
    return { available: false, missing: [], problems: [`no outer sandbox on ${platform}`], install: undefined };
  }
  const { errors } = check();
  const missing = SANDBOX_PACKAGES.filter((pkg) => errors.some((error) => pkg.missingWhen.test(error))).map(
    (pkg) => pkg.name,
  );
  return { available: errors.length === 0, missing, problems: [...errors], install: installCommand(platform, missing) };
}

const REASON_MAX_CHARS = 512;

function cut(text: string): string {
  return text.length > REASON_MAX_CHARS ? `${text.slice(0, REASON_MAX_CHARS - 1)}…` : text;
}

export function decideSandboxPosture(input: {
  platform: NodeJS.Platform;
  availability: SandboxAvailability;
  /** `--unsandboxed-shell`: informed consent to run_command without the outer sandbox. */
  unsandboxedShell: boolean;
}): SandboxPosture {
  const { platform, availability } = input;
  if (availability.available) {
    return { capabilities: { sandbox: 'srt', shell: true, platform }, availability, warning: undefined };
  }
  if (!SANDBOXED_PLATFORMS.includes(platform)) {
    const reason = `no outer sandbox on ${platform}: run_command withheld, file tools available`;
    return { capabilities: { sandbox: 'none', shell: false, platform, reason }, availability, warning: undefined };
  }
  const why =
    availability.missing.length > 0 ? `missing ${availability.missing.join(', ')}` : availability.problems.join('; ');
  if (input.unsandboxedShell) {
    const reason = cut(`--unsandboxed-shell: run_command runs WITHOUT the outer sandbox (${why})`);
    const warning =
      'WARNING: --unsandboxed-shell: the outer sandbox is unavailable and you chose to run the agent ' +
      'with a shell anyway. Commands it runs can read your SSH keys and cloud credentials, write ' +
      'your shell start-up files and reach any host on the network.';
    return { capabilities: { sandbox: 'none', shell: true, platform, reason }, availability, warning };
  }
  const install = availability.install ? `; install: ${availability.install}` : '';
  const reason = cut(`outer sandbox unavailable (${why}): run_command withheld${install}`);
  return { capabilities: { sandbox: 'none', shell: false, platform, reason }, availability, warning: undefined };
}
