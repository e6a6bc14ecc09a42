import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { parseConfigFile } from '../../src/config/load.js';
import { queueSettings } from '../../src/remote/settings.js';
import { REPO_ROOT } from '../support/cli.js';

const MANIFEST = join(REPO_ROOT, 'deploy', 'cadre-worker.yaml');

interface Doc {
  kind: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: {
    template: {
      spec: {
        containers: {
          args?: string[];
          command?: string[];
          env: { name: string; value?: string; valueFrom?: { secretKeyRef?: { key: string } } }[];
          volumeMounts: { name: string; mountPath: string }[];
        }[];
        volumes: { name: string; configMap?: { name: string } }[];
      };
    };
  };
}

describe('the Kubernetes manifest for workers', () => {
  const docs = parseAllDocuments(readFileSync(MANIFEST, 'utf8')).map((d) => {
    expect(d.errors).toEqual([]);
    return d.toJS() as Doc;
  });
  const deployment = docs.find((d) => d.kind === 'Deployment');
  const configMap = docs.find((d) => d.kind === 'ConfigMap');

  it('runs cadre worker with the signing secret from a Secret and the config from the ConfigMap', () => {
    const container = deployment?.spec?.template.spec.containers[0];
    expect([...(container?.command ?? []), ...(container?.args ?? [])].join(' ')).toMatch(
      /cadre worker --concurrency \d+ --name "\$POD_NAME"/,
    );
    const env = new Map(container?.env.map((e) => [e.name, e]));
    expect(env.get('CADRE_WORKER_SECRET')?.valueFrom?.secretKeyRef?.key).toBe('CADRE_WORKER_SECRET');
    const configDir = env.get('CADRE_CONFIG_DIR')?.value;
    const mount = container?.volumeMounts.find((m) => m.mountPath === configDir);
    const volume = deployment?.spec?.template.spec.volumes.find((v) => v.name === mount?.name);
    expect(volume?.configMap?.name).toBe(configMap?.metadata.name);
  });

  it('ships a config.json that is a valid cadre config with a complete workers block', () => {
    const text = configMap?.data?.['config.json'] ?? '';
    const config = parseConfigFile('config.json', text);
    const settings = queueSettings(config, { CADRE_WORKER_SECRET: 'x' }, 'worker');
    expect(settings.redis).toMatch(/^redis:\/\//);
    expect(config.workers?.repository).toBeTruthy();
  });
});
