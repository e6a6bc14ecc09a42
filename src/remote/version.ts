import packageJson from '../../package.json' with { type: 'json' };

/** This cadre's version: a job names the root's, and a worker of another version refuses it. */
export const CADRE_VERSION: string = packageJson.version;
