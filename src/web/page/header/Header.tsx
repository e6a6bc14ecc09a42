import type { ControllerState } from '../../../controller/types.js';
import type { Catalog } from '../../server/view.js';

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'lost';

/** The value the selector shows for "no profile". */
export const DEFAULT_PROFILE = 'default';

const count = (n: number) => n.toLocaleString('en-US');

interface Props {
  state: ControllerState;
  catalog: Catalog;
  connection: Connection;
  switchProfile(name: string): void;
}

/** The profile selector (`default` and every loaded profile) and the session's status. */
export function Header({ state, catalog, connection, switchProfile }: Props) {
  const current = state.profile ?? DEFAULT_PROFILE;
  const context =
    state.model.contextWindow > 0 ? Math.round((100 * state.contextTokens) / state.model.contextWindow) : 0;
  return (
    <header class="top">
      <span class="brand">cadre</span>
      <label class="profile">
        <span>Profile</span>
        <select
          aria-label="Profile"
          value={current}
          onChange={(event) => {
            const select = event.currentTarget;
            const chosen = select.value;
            // Shown as it is until the controller says the switch happened (it may refuse mid-turn).
            select.value = current;
            if (chosen !== current) switchProfile(chosen);
          }}
        >
          <option value={DEFAULT_PROFILE}>{DEFAULT_PROFILE}</option>
          {catalog.profiles.map((profile) => (
            <option key={profile.name} value={profile.name} title={profile.description ?? undefined}>
              {profile.name}
            </option>
          ))}
        </select>
      </label>
      <dl class="status" aria-label="Status">
        <div>
          <dt>model</dt>
          <dd>{state.model.label}</dd>
        </div>
        {state.prompt && (
          <div>
            <dt>prompt</dt>
            <dd>{state.prompt}</dd>
          </div>
        )}
        <div>
          <dt>safety</dt>
          <dd>{state.planMode ? `${state.safety}, plan mode` : state.safety}</dd>
        </div>
        <div>
          <dt>tokens</dt>
          <dd>
            {count(state.usage.inputTokens)} in / {count(state.usage.outputTokens)} out
          </dd>
        </div>
        <div>
          <dt>context</dt>
          <dd>{context}%</dd>
        </div>
        <div>
          <dt>cost</dt>
          <dd>{state.costUsd === null ? 'n/a' : `$${state.costUsd.toFixed(4)}`}</dd>
        </div>
      </dl>
      <span class={`connection connection-${connection}`} role="status">
        {connection === 'live' ? (state.status === 'running' ? 'working…' : 'ready') : connection}
      </span>
    </header>
  );
}
