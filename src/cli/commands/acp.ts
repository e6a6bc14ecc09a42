import { closeScriptedServersIfStarted } from '../../provider/model.js';
import { type AgentOptions, agentFlags } from '../bootstrap.js';

/** `cadre acp`: the Agent Client Protocol over stdio until the client disconnects (SPEC 12.1). */
export async function runAcpCommand(options: AgentOptions & { version: string }): Promise<number> {
  const { runAcpServer } = await import('../../acp/server.js');
  const log = (line: string) => process.stderr.write(`cadre acp: ${line}\n`);
  try {
    await runAcpServer({
      input: process.stdin,
      output: process.stdout,
      log,
      env: process.env,
      version: options.version,
      flags: agentFlags(options),
      trustProject: options.trustProject === true,
    });
    return 0;
  } finally {
    // Through the model module, so a run without a scripted provider never loads the scripted server.
    await closeScriptedServersIfStarted();
  }
}
