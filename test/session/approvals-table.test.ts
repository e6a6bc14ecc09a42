import { describe, expect, it } from 'vitest';
import { useTempStore } from './temp-store.js';

describe('approvals table', () => {
  const temp = useTempStore();

  it('returns a session’s rules in the order approved, each once', () => {
    const { store } = temp();
    const session = store.createSession({ projectRoot: '/r', cwd: '/r' });
    const other = store.createSession({ projectRoot: '/r', cwd: '/r' });
    store.addApproval(session.id, 'bash(git checkout *)');
    store.addApproval(session.id, 'edit(src/**)');
    store.addApproval(session.id, 'bash(git checkout *)');
    store.addApproval(other.id, 'webfetch');

    expect(store.approvals(session.id)).toEqual(['bash(git checkout *)', 'edit(src/**)']);
    expect(store.approvals(other.id)).toEqual(['webfetch']);
  });

  it('has no approvals for a new session', () => {
    const { store } = temp();
    expect(store.approvals(store.createSession({ projectRoot: '/r', cwd: '/r' }).id)).toEqual([]);
  });
});
