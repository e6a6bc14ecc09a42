import { writeFileSync } from 'node:fs';
import { onTestFinished } from 'vitest';
import type {
  Script,
  ScriptErrorReply,
  ScriptMatch,
  ScriptRule,
  ScriptToolCall,
  ScriptTurn,
} from '../../src/provider/scripted/script.js';
import {
  type ScriptedServer,
  type ScriptedServerOptions,
  startScriptedServer,
} from '../../src/provider/scripted/server.js';

/** Builds one scripted turn: `t.text('…').tool('read', {path})`. Calls combine into the same turn. */
export class TurnBuilder {
  private readonly turn: ScriptTurn = {};

  text(text: string): this {
    this.turn.text = (this.turn.text ?? '') + text;
    return this;
  }

  reasoning(text: string): this {
    this.turn.reasoning = (this.turn.reasoning ?? '') + text;
    return this;
  }

  tool(name: string, args: Record<string, unknown> = {}): this {
    return this.addCall({ name, arguments: args });
  }

  /** A tool call whose arguments are sent verbatim, e.g. deliberately malformed JSON. */
  rawTool(name: string, rawArguments: string): this {
    return this.addCall({ name, raw_arguments: rawArguments });
  }

  delay(ms: number): this {
    this.turn.delay_ms = ms;
    return this;
  }

  /** Fail with `status` (every attempt, or the first `times`), then answer with the rest of the turn. */
  error(status: number, message: string, options: Omit<ScriptErrorReply, 'status' | 'message'> = {}): this {
    this.turn.error = { status, message, ...options };
    return this;
  }

  /** Drop the connection mid-reply (every attempt, or the first `times`). */
  reset(times?: number): this {
    this.turn.reset = times === undefined ? true : { times };
    return this;
  }

  /** End the reply part-way as if it were complete (every attempt, or the first `times`). */
  truncate(times?: number): this {
    this.turn.truncate = times === undefined ? true : { times };
    return this;
  }

  /** Put a line that is not JSON into the reply (every attempt, or the first `times`). */
  malformed(times?: number): this {
    this.turn.malformed = times === undefined ? true : { times };
    return this;
  }

  /** Start the reply, then send the wire's error event (every attempt, or the first `times`). */
  streamError(message: string, options: { type?: string; times?: number } = {}): this {
    this.turn.stream_error = { message, ...options };
    return this;
  }

  usage(inputTokens: number, outputTokens: number): this {
    this.turn.usage = { input_tokens: inputTokens, output_tokens: outputTokens };
    return this;
  }

  build(): ScriptTurn {
    return structuredClone(this.turn);
  }

  private addCall(call: ScriptToolCall): this {
    this.turn.tool_calls = [...(this.turn.tool_calls ?? []), call];
    return this;
  }
}

export type TurnSpec = ScriptTurn | ((t: TurnBuilder) => TurnBuilder);

/**
 * Fluent script writer producing the same JSON as a script file:
 * `script().rule({system: 'reviewer'}).turn(t => t.tool('read', {path: 'a.txt'})).turn(t => t.text('done'))`.
 * `turn()` before any `rule()` opens a rule that matches everything.
 */
export class ScriptBuilder {
  private readonly rules: ScriptRule[] = [];

  rule(match?: ScriptMatch, name?: string): this {
    this.rules.push({ ...(name ? { name } : {}), ...(match ? { match } : {}), turns: [] });
    return this;
  }

  turn(spec: TurnSpec): this {
    if (this.rules.length === 0) this.rule();
    const turn = typeof spec === 'function' ? spec(new TurnBuilder()).build() : structuredClone(spec);
    this.rules[this.rules.length - 1].turns.push(turn);
    return this;
  }

  /** Shorthand for a turn that only says `text`. */
  text(text: string): this {
    return this.turn({ text });
  }

  build(): Script {
    return { rules: structuredClone(this.rules) };
  }

  toJSON(): Script {
    return this.build();
  }

  /** Writes the script as a JSON file (for `{"type": "scripted", "script": …}` configs). */
  writeTo(file: string): string {
    writeFileSync(file, `${JSON.stringify(this.build(), null, 2)}\n`);
    return file;
  }
}

export function script(): ScriptBuilder {
  return new ScriptBuilder();
}

function toScript(source: Script | ScriptBuilder): Script {
  return source instanceof ScriptBuilder ? source.build() : source;
}

/** Runs `fn` against a fresh server and closes it afterwards, whatever happens. */
export async function withScriptedServer<T>(
  source: Script | ScriptBuilder,
  fn: (server: ScriptedServer) => Promise<T>,
  options?: ScriptedServerOptions,
): Promise<T> {
  const server = await startScriptedServer(toScript(source), options);
  try {
    return await fn(server);
  } finally {
    await server.close();
  }
}

/** Starts a server that closes itself when the current test finishes. Call inside a test. */
export async function scriptedServer(
  source: Script | ScriptBuilder,
  options?: ScriptedServerOptions,
): Promise<ScriptedServer> {
  const server = await startScriptedServer(toScript(source), options);
  onTestFinished(() => server.close());
  return server;
}

/**
 * A provider alias pointing cadre at a server started by the test (so the test sees every request),
 * for `providers` in a config: `{ providers: { fake: scriptedProviderAlias(server) }, provider: 'fake' }`.
 */
export function scriptedProviderAlias(server: ScriptedServer, model = 'scripted-model') {
  return { type: 'openai-compatible', base_url: server.openaiBaseUrl, model, api_key: 'scripted' } as const;
}
