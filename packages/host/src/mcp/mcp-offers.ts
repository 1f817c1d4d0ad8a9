/**
 * SECURITY.md, MCP servers (prompts and resources; prompt injection by a server the user
 * installed): a server's prompts, resources and resource templates, offered to the person only — run as `/mcp__SERVER__PROMPT` and attached as
 * `@SERVER:URI` in the message box and `bastion chat` — never to the agent, which gets no way to
 * list, run or read them. Everything the server lists is untrusted and bounded here: at most
 * MCP_MAX_PROMPTS_PER_SERVER prompts and MCP_MAX_RESOURCES_PER_SERVER resources (one note counts
 * the rest), names that fit a command or one word, at most MCP_PROMPT_MAX_ARGUMENTS arguments each
 * named as typed, at most MCP_MAX_RESOURCE_TEMPLATES_PER_SERVER templates of one word that parse
 * as RFC 6570 with at most MCP_RESOURCE_TEMPLATE_MAX_VARIABLES variables, descriptions cut, and all of it within MCP_OFFERS_MAX_BYTES; every text cut of
 * the values Bastion holds (a name holding one leaves the entry out). What a prompt or resource
 * says is read whole, then refused — never cut — when it is too large or a resource is binary.
 *
 * What it does not catch: what the text says. It goes into the person's own turn, shown to them
 * first for a prompt (in the message box), named as the server's in the transcript.
 */
import {
  MCP_ERROR_MAX_CHARS,
  MCP_MAX_PROMPTS_PER_SERVER,
  MCP_MAX_RESOURCES_PER_SERVER,
  MCP_MAX_RESOURCE_TEMPLATES_PER_SERVER,
  MCP_RESOURCE_TEMPLATE_MAX_VARIABLES,
  MCP_OFFER_DESCRIPTION_MAX_CHARS,
  MCP_OFFERS_MAX_BYTES,
  MCP_PROMPT_ARGUMENT_NAME_PATTERN,
  MCP_PROMPT_MAX_ARGUMENTS,
  MCP_RESOURCE_MIME_TYPE_MAX_CHARS,
  MCP_RESOURCE_NAME_MAX_CHARS,
  MCP_RESOURCE_TEXT_MAX_BYTES,
  MCP_RESOURCE_URI_MAX_CHARS,
  MCP_RESOURCE_URI_PATTERN,
  mcpToolName,
  type McpPromptSummary,
  type McpResourceSummary,
  type McpResourceTemplateSummary,
} from '@bastion/protocol';
import { UriTemplate, type Variables } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';
import type { Prompt, ReadResourceResult, Resource, ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';

/** What a server offers the person, and why each other entry is not offered, in words. */
export interface McpOffers {
  prompts: McpPromptSummary[];
  resources: McpResourceSummary[];
  resourceTemplates: McpResourceTemplateSummary[];
  leftOut: string[];
}

/** `text` cut of the held values (the hub's `redact`). */
type Redact = (text: string) => string;

/** A note's name of an entry: the start of what the server called it, never a held value. */
function shown(text: string, redact: Redact): string {
  const name = redact(text);
  return name.length <= 64 ? name : `${name.slice(0, 63)}…`;
}

/** Why `prompt` of `server` cannot be offered, or undefined when it can. */
function promptProblem(server: string, prompt: Prompt, redact: Redact): string | undefined {
  if (redact(prompt.name) !== prompt.name) return 'its name holds the value of a variable Bastion holds';
  if (mcpToolName(server, prompt.name) === undefined)
    return 'its name is not letters, digits, "_" and "-", or too long for a command';
  const args = prompt.arguments ?? [];
  if (args.length > MCP_PROMPT_MAX_ARGUMENTS) return `it takes more than ${MCP_PROMPT_MAX_ARGUMENTS} arguments`;
  if (
    !args.every(
      (argument) => MCP_PROMPT_ARGUMENT_NAME_PATTERN.test(argument.name) && redact(argument.name) === argument.name,
    )
  )
    return 'an argument’s name is not letters, digits, "_", "-" and ".", or too long';
  if (new Set(args.map((argument) => argument.name)).size !== args.length) return 'two of its arguments have one name';
  return undefined;
}

/** Why `resource` cannot be offered, or undefined when it can. */
function resourceProblem(resource: Resource, redact: Redact): string | undefined {
  if (resource.uri.length > MCP_RESOURCE_URI_MAX_CHARS)
    return `its URI is over ${MCP_RESOURCE_URI_MAX_CHARS} characters`;
  if (!MCP_RESOURCE_URI_PATTERN.test(resource.uri)) return 'its URI holds a space or a control character';
  if (redact(resource.uri) !== resource.uri) return 'its URI holds the value of a variable Bastion holds';
  return undefined;
}

/** A template's variables, or why it cannot be offered. */
function templateVariables(
  template: ResourceTemplate,
  redact: Redact,
): { ok: true; names: string[] } | { ok: false; problem: string } {
  const uri = template.uriTemplate;
  if (uri.length > MCP_RESOURCE_URI_MAX_CHARS)
    return { ok: false, problem: `it is over ${MCP_RESOURCE_URI_MAX_CHARS} characters` };
  if (!MCP_RESOURCE_URI_PATTERN.test(uri)) return { ok: false, problem: 'it holds a space or a control character' };
  if (redact(uri) !== uri) return { ok: false, problem: 'it holds the value of a variable Bastion holds' };
  let names: string[];
  try {
    names = new UriTemplate(uri).variableNames;
  } catch {
    return { ok: false, problem: 'it is no URI template' };
  }
  if (names.length === 0) return { ok: false, problem: 'it has no variable' };
  if (names.length > MCP_RESOURCE_TEMPLATE_MAX_VARIABLES)
    return { ok: false, problem: `it has more than ${MCP_RESOURCE_TEMPLATE_MAX_VARIABLES} variables` };
  if (!names.every((name) => MCP_PROMPT_ARGUMENT_NAME_PATTERN.test(name) && redact(name) === name))
    return { ok: false, problem: 'a variable’s name is not letters, digits, "_", "-" and ".", or too long' };
  if (new Set(names).size !== names.length) return { ok: false, problem: 'a variable is named twice' };
  return { ok: true, names };
}

/** A listed MIME type, redacted, as a summary's `mime_type` when it is short enough to be one (else none). */
function mimeTypeOf(mimeType: string | undefined, redact: Redact): { mime_type?: string } {
  const redacted = mimeType === undefined ? undefined : redact(mimeType);
  return redacted !== undefined && redacted.length <= MCP_RESOURCE_MIME_TYPE_MAX_CHARS ? { mime_type: redacted } : {};
}

const describe = (text: string | undefined, redact: Redact) =>
  redact(text ?? '').slice(0, MCP_OFFER_DESCRIPTION_MAX_CHARS);

/** A count of the entries left out over `max`, in place of one line each (a server listing thousands would outgrow the status). */
function countedBeyond(leftOut: string[], max: number, what: string): string[] {
  if (leftOut.length <= max) return leftOut;
  const more = leftOut.length - (max - 1);
  return [...leftOut.slice(0, max - 1), `${more} more ${what} left out`];
}

/** The prompts, resources and resource templates of `server` the person is offered, from what it listed, within the bounds. */
export function offersOf(
  server: string,
  prompts: readonly Prompt[],
  resources: readonly Resource[],
  templates: readonly ResourceTemplate[],
  redact: Redact,
): McpOffers {
  let room = MCP_OFFERS_MAX_BYTES;
  const fits = (entry: object) => {
    const size = new TextEncoder().encode(JSON.stringify(entry)).byteLength;
    if (size > room) return false;
    room -= size;
    return true;
  };
  const overRoom = `over the ${MCP_OFFERS_MAX_BYTES / 1024} KiB of prompts and resources one server may list`;

  const offeredPrompts: McpPromptSummary[] = [];
  const promptsLeftOut: string[] = [];
  for (const prompt of prompts) {
    const name = `prompt ${shown(prompt.name, redact)}`;
    if (offeredPrompts.length >= MCP_MAX_PROMPTS_PER_SERVER) {
      promptsLeftOut.push(`${name}: more than ${MCP_MAX_PROMPTS_PER_SERVER} prompts`);
      continue;
    }
    const problem =
      promptProblem(server, prompt, redact) ??
      (offeredPrompts.some((offered) => offered.name === prompt.name) ? 'another prompt has its name' : undefined);
    if (problem !== undefined) {
      promptsLeftOut.push(`${name}: ${problem}`);
      continue;
    }
    const summary: McpPromptSummary = {
      name: prompt.name,
      description: describe(prompt.description ?? prompt.title, redact),
      arguments: (prompt.arguments ?? []).map((argument) => ({
        name: argument.name,
        description: describe(argument.description, redact),
        required: argument.required === true,
      })),
    };
    if (fits(summary)) offeredPrompts.push(summary);
    else promptsLeftOut.push(`${name}: ${overRoom}`);
  }

  const offeredResources: McpResourceSummary[] = [];
  const resourcesLeftOut: string[] = [];
  for (const resource of resources) {
    const name = `resource ${shown(resource.uri, redact)}`;
    if (offeredResources.length >= MCP_MAX_RESOURCES_PER_SERVER) {
      resourcesLeftOut.push(`${name}: more than ${MCP_MAX_RESOURCES_PER_SERVER} resources`);
      continue;
    }
    const problem =
      resourceProblem(resource, redact) ??
      (offeredResources.some((offered) => offered.uri === resource.uri) ? 'another resource has its URI' : undefined);
    if (problem !== undefined) {
      resourcesLeftOut.push(`${name}: ${problem}`);
      continue;
    }
    const summary: McpResourceSummary = {
      uri: resource.uri,
      name: redact(resource.title ?? resource.name).slice(0, MCP_RESOURCE_NAME_MAX_CHARS),
      description: describe(resource.description, redact),
      ...mimeTypeOf(resource.mimeType, redact),
      ...(Number.isSafeInteger(resource.size) && (resource.size ?? -1) >= 0 ? { size: resource.size } : {}),
    };
    if (fits(summary)) offeredResources.push(summary);
    else resourcesLeftOut.push(`${name}: ${overRoom}`);
  }

  const offeredTemplates: McpResourceTemplateSummary[] = [];
  const templatesLeftOut: string[] = [];
  for (const template of templates) {
    const name = `resource template ${shown(template.uriTemplate, redact)}`;
    if (offeredTemplates.length >= MCP_MAX_RESOURCE_TEMPLATES_PER_SERVER) {
      templatesLeftOut.push(`${name}: more than ${MCP_MAX_RESOURCE_TEMPLATES_PER_SERVER} resource templates`);
      continue;
    }
    const variables = templateVariables(template, redact);
    const problem = !variables.ok
      ? variables.problem
      : offeredTemplates.some((offered) => offered.uri_template === template.uriTemplate)
        ? 'another template is written as it is'
        : undefined;
    if (problem !== undefined || !variables.ok) {
      templatesLeftOut.push(`${name}: ${problem ?? ''}`);
      continue;
    }
    const summary: McpResourceTemplateSummary = {
      uri_template: template.uriTemplate,
      name: redact(template.title ?? template.name).slice(0, MCP_RESOURCE_NAME_MAX_CHARS),
      description: describe(template.description, redact),
      ...mimeTypeOf(template.mimeType, redact),
      variables: variables.names,
    };
    if (fits(summary)) offeredTemplates.push(summary);
    else templatesLeftOut.push(`${name}: ${overRoom}`);
  }

  return {
    prompts: offeredPrompts,
    resources: offeredResources,
    resourceTemplates: offeredTemplates,
    leftOut: [
      ...countedBeyond(promptsLeftOut, MCP_MAX_PROMPTS_PER_SERVER, 'prompts'),
      ...countedBeyond(resourcesLeftOut, MCP_MAX_RESOURCES_PER_SERVER, 'resources'),
      ...countedBeyond(templatesLeftOut, MCP_MAX_RESOURCE_TEMPLATES_PER_SERVER, 'resource templates'),
    ].map((note) => note.slice(0, MCP_ERROR_MAX_CHARS)),
  };
}

export type ExpandedTemplate =
  { ok: true; uri: string } | { ok: false; code: 'MCP_TEMPLATE_VALUES_INVALID'; message: string };

/**
 * The URI `template` expands to with the person's `values` (RFC 6570, the SDK's UriTemplate): one
 * for each of its variables and no other, and an expansion that is one word within
 * MCP_RESOURCE_URI_MAX_CHARS (a value's characters are percent-encoded as its operator says: a
 * value cannot add a word, so never another `@SERVER:URI`).
 */
export function expandedTemplate(
  template: McpResourceTemplateSummary,
  values: Readonly<Record<string, string>>,
): ExpandedTemplate {
  const refused = (message: string): ExpandedTemplate => ({ ok: false, code: 'MCP_TEMPLATE_VALUES_INVALID', message });
  const given = Object.keys(values);
  const unknown = given.find((name) => !template.variables.includes(name));
  if (unknown !== undefined) return refused(`${template.uri_template} takes no variable "${unknown}"`);
  const missing = template.variables.find((name) => !given.includes(name) || values[name] === '');
  if (missing !== undefined) return refused(`${template.uri_template} needs a value for ${missing}`);
  let uri: string;
  try {
    uri = new UriTemplate(template.uri_template).expand({ ...values } satisfies Variables);
  } catch {
    // encodeURI(Component) refuses a lone surrogate (URIError).
    return refused(`a value for ${template.uri_template} is not text a URI can hold`);
  }
  if (uri.length > MCP_RESOURCE_URI_MAX_CHARS)
    return refused(`${template.uri_template} expands to over ${MCP_RESOURCE_URI_MAX_CHARS} characters`);
  if (!MCP_RESOURCE_URI_PATTERN.test(uri)) return refused(`${template.uri_template} expands to more than one word`);
  return { ok: true, uri };
}

export type ResourceText =
  { ok: true; text: string } | { ok: false; code: 'MCP_RESOURCE_NOT_TEXT' | 'MCP_RESOURCE_TOO_LARGE'; message: string };

/**
 * A read resource's text for a message, cut of the held values: its text contents, a blank line
 * between; refused when any content is binary (a blob: only text is attached) or when the text is
 * over MCP_RESOURCE_TEXT_MAX_BYTES (refused, never cut: the person would not know what was left out).
 */
export function resourceText(uri: string, result: ReadResourceResult, redact: Redact): ResourceText {
  const binary = result.contents.find((content) => !('text' in content));
  if (binary !== undefined) {
    const type =
      binary.mimeType === undefined ? '' : ` (${redact(binary.mimeType).slice(0, MCP_RESOURCE_MIME_TYPE_MAX_CHARS)})`;
    return {
      ok: false,
      code: 'MCP_RESOURCE_NOT_TEXT',
      message: `${uri} is binary${type}: only a resource's text can be attached to a message`,
    };
  }
  const text = redact(result.contents.map((content) => ('text' in content ? content.text : '')).join('\n\n'));
  const bytes = new TextEncoder().encode(text).byteLength;
  if (bytes > MCP_RESOURCE_TEXT_MAX_BYTES) {
    return {
      ok: false,
      code: 'MCP_RESOURCE_TOO_LARGE',
      message: `${uri} is ${Math.ceil(bytes / 1024)} KiB of text, over the ${MCP_RESOURCE_TEXT_MAX_BYTES / 1024} KiB a resource attached to a message may be`,
    };
  }
  return { ok: true, text };
}
