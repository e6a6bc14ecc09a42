import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigError } from '../../src/config/load.js';
import type { ModelRoute } from '../../src/provider/route.js';

vi.mock('../../src/provider/model.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/provider/model.js')>();
  return { ...actual, createLanguageModel: vi.fn(actual.createLanguageModel) };
});

const { createLanguageModel } = await import('../../src/provider/model.js');
const { warmModelPath } = await import('../../src/acp/warm.js');
const built = vi.mocked(createLanguageModel);

afterEach(() => built.mockClear());

describe('warmModelPath', () => {
  it("builds the route's model ahead: the first request gets that same model", async () => {
    const route: ModelRoute = { type: 'openai-compatible', model: 'm', baseURL: 'http://127.0.0.1:9/v1' };
    warmModelPath(route);
    expect(built).toHaveBeenCalledOnce();
    const ahead = await built.mock.results[0].value;
    expect(await createLanguageModel({ ...route })).toBe(ahead);
  });

  it('leaves a scripted route to its first request, which starts its server', () => {
    warmModelPath({ type: 'scripted', model: 'scripted', script: '/nowhere.json' });
    expect(built).not.toHaveBeenCalled();
  });

  it('a route that cannot be built fails nothing ahead: its first request still reports why', async () => {
    const unhandled = vi.fn();
    process.on('unhandledRejection', unhandled);
    try {
      const route: ModelRoute = { type: 'openai-compatible', model: 'm' };
      warmModelPath(route);
      await expect(built.mock.results[0].value).rejects.toBeInstanceOf(ConfigError);
      await expect(createLanguageModel(route)).rejects.toThrow(/base_url/);
      // A rejection nobody handles is reported after the microtasks that could still handle it.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).not.toHaveBeenCalled();
    } finally {
      process.off('unhandledRejection', unhandled);
    }
  });
});
