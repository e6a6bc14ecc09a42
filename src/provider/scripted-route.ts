import type { ModelRoute } from './route.js';
import { loadScript } from './scripted/script.js';
import { type ScriptedServer, startScriptedServer } from './scripted/server.js';

/** One in-process loopback server per script file, shared by every route that names it. */
const servers = new Map<string, Promise<ScriptedServer>>();

export async function scriptedBaseUrl(route: ModelRoute): Promise<string> {
  if (!route.script) throw new Error(`provider ${route.alias ?? 'scripted'} needs "script"`);
  const path = route.script;
  let server = servers.get(path);
  if (!server) {
    server = startScriptedServer(loadScript(path));
    servers.set(path, server);
  }
  return (await server).openaiBaseUrl;
}

export async function closeScriptedServers(): Promise<void> {
  const all = [...servers.values()];
  servers.clear();
  await Promise.all(all.map(async (s) => (await s).close()));
}
