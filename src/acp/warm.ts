import { warmNodeInternals } from '../agent/idle-warmup.js';
import { createLanguageModel } from '../provider/model.js';
import type { ModelRoute } from '../provider/route.js';

/**
 * Loads what a session's first model request would load on the prompt's path: the provider's SDK (the same
 * model object, cached per route, that the first request then uses) and Node's HTTP client, and makes the
 * first-use parts of Node's streams that a reply passes (the runtime does that only once a request has
 * waited 100 ms, which a local model that answers sooner never does). Called once an open session has waited
 * a moment for its first prompt: an editor's user is typing it, so the work fills time the process would
 * spend waiting.
 * A scripted route's model is left to its first request, which starts its in-process server.
 */
export function warmModelPath(route: ModelRoute): void {
  warmNodeInternals().catch(() => {});
  if (route.type === 'scripted') return;
  // A route that cannot be built fails the first prompt with its error; nothing is cached for it.
  createLanguageModel(route).catch(() => {});
  const secure = route.baseURL === undefined || route.baseURL.startsWith('https:');
  void (secure ? import('node:https') : import('node:http'));
}
