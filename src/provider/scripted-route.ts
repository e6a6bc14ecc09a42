import { ConfigError } from '../config/load.js';
import type { ModelRoute } from './route.js';
import { loadScript, type Script, ScriptError } from './scripted/script.js';
import { type ScriptedServer, startScriptedServer } from './scripted/server.js';

/** One in-process loopback server per script file, shared by every route that names it. */
const servers = new Map<string, Promise<ScriptedServer>>();

export async function scriptedBaseUrl(route: ModelRoute): Promise<string> {
  if (!route.script) throw new ConfigError(`provider ${route.alias ?? 'scripted'} needs "script"`);
  const path = route.script;
  let server = servers.get(path);
  if (!server) {
    let script: Script;
    try {
      script = loadScript(path);
    } catch (error) {
      // A broken script is bad configuration (exit 2), like a broken config file.
      if (error instanceof ScriptError) throw new ConfigError(error.message);
      throw error;
    }
    server = startScriptedServer(script);
    servers.set(path, server);
  }
  return (await server).openaiBaseUrl;
}

export async function closeScriptedServers(): Promise<void> {
  const all = [...servers.values()];
  servers.clear();
  await Promise.all(all.map(async (s) => (await s).close()));
}
